// SILENT: a function whose result is a place of a parameter as it is — an element of a slice
// (`x[0]`), a field of a parameter struct (`p.x`), also through a `let` (`let y = x[1]; y`) —
// had gradient 0 where it is 1 (`grad_`, `value_and_grad_`, `vjp_`); `jvp_` was right. The
// backward sweep seeds the returned value, and a place was not a value of the list; it is now
// read into one. Present at a6dcaf6 and before. (Found by random-program testing with parameter
// structs: diffx-fuzz seed 4949 with `--weight fields=60`, f120, whose loop did nothing.)
use diffx::{autodiff, Params};

#[derive(Clone, Debug, PartialEq, Params)]
struct Pf {
    x: f64,
    y: f64,
}

#[autodiff]
fn element(x: &[f64]) -> f64 {
    x[0]
}

#[autodiff]
fn element_through_let(x: [f64; 2]) -> f64 {
    let y = x[1];
    y
}

#[autodiff]
fn field(pf: &Pf) -> f64 {
    let x = pf.x;
    for i in 0..2 {
        if x > 5.0 && i > 0 {}
    }
    x
}

pub fn main() {
    assert_eq!(grad_element(&[1.0, 2.0]), vec![1.0, 0.0]);
    assert_eq!(vjp_element(&[1.0, 2.0], 3.0), vec![3.0, 0.0]);
    assert_eq!(grad_element_through_let([1.0, 2.0]), [0.0, 1.0]);
    let p = Pf { x: 0.5, y: 2.0 };
    assert_eq!(grad_field(&p), Pf { x: 1.0, y: 0.0 });
    assert_eq!(value_and_grad_field(&p), (0.5, Pf { x: 1.0, y: 0.0 }));
    assert_eq!(jvp_field(&p, &Pf { x: 1.0, y: 0.0 }), (0.5, 1.0));
}
