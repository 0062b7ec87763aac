//! diffx placeholder
pub use diffx_macros::autodiff;
pub use diffx_runtime::*;

#[doc(hidden)]
pub mod __private {
    pub use diffx_runtime::private::*;
}
