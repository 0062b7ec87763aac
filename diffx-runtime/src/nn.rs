//! nn
