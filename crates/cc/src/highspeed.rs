//! highspeed (to be written)
