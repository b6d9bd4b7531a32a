//! registry (to be written)
