//! bic (to be written)
