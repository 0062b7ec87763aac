//! Tensors and training: tensor operations under `#[autodiff]` (`tensor`), loops over a model's
//! layers (`layers`), the Iris experiment against PyTorch's run (`iris_reference`), and the faults
//! users meet first — shapes, empty tensors, optimizers, data files, the examples' arguments
//! (`faults`).

mod faults;
mod iris_reference;
mod layers;
mod tensor;
