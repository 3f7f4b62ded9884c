//! Weight packing: standard bit-packed storage and the kernels' fragment-ordered layouts.

pub mod fragment;
