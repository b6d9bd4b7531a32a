//! newreno (to be written)
