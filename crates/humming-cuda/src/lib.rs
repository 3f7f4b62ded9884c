//! humming-cuda: the runtime on `cust` (module cache, validated typed launches, weight upload).

pub use cust;
