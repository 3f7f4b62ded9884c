use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16)]
pub fn with_body() {
    println!("my own body");
}

fn main() {}
