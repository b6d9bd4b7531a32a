//! cubic (to be written)
