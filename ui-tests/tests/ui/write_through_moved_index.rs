use diffx::autodiff;

// `*r` of a `&mut v[i]` after `i` changes: the reference keeps the element it took, which
// `#[autodiff]` cannot write as `v[i]`; write the element by its index instead (`v[0] = …`).
#[autodiff]
fn f(x: f64) -> f64 {
    let mut v = [0.0; 3];
    let mut i = 0;
    let r = &mut v[i];
    i += 1;
    *r = x * 2.0;
    v[0] + v[1] * (i as f64)
}

fn main() {}
