//! optim
