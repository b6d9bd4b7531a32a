//! fast (to be written)
