//! vegas (to be written)
