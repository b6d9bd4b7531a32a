//! scalable (to be written)
