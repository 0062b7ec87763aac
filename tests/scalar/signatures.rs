//! The generated functions' signatures, with every type written out: a change to what
//! `#[autodiff]` returns fails to compile here. (These were trybuild pass tests; as plain tests they
//! do not make trybuild build every dependency with code generation.)

mod straight_line {
    use diffx::autodiff;

    #[autodiff]
    pub fn f(x: f64, y: f64, n: usize) -> f64 {
        let mut s = x * y;
        s += n as f64;
        s.sin() + y.exp()
    }

    #[test]
    fn two_parameters_and_a_constant() {
        let (gx, gy): (f64, f64) = grad_f(1.0, 2.0, 3);
        let (_v, (_a, _b)): (f64, (f64, f64)) = value_and_grad_f(1.0, 2.0, 3);
        let (_c, _d): (f64, f64) = vjp_f(1.0, 2.0, 3, 1.0);
        let (_v, _t): (f64, f64) = jvp_f(1.0, 2.0, 3, 1.0, 0.0);
        assert!(gx.is_finite() && gy.is_finite());
        assert_eq!((gx, gy), (_a, _b));
    }
}

mod one_parameter_is_bare {
    use diffx::autodiff;

    #[autodiff]
    fn g(x: f32) -> f32 {
        x.tanh()
    }

    #[test]
    fn a_single_gradient_is_not_a_tuple() {
        let d: f32 = grad_g(0.5);
        let (_v, _d): (f32, f32) = value_and_grad_g(0.5);
        let _p: f32 = vjp_g(0.5, 2.0);
        assert!(d > 0.0);
        assert_eq!(_p, 2.0 * d);
    }
}

mod second_order_on_request {
    use diffx::autodiff;

    #[autodiff(order = 2)]
    fn h(x: f64, y: f64) -> f64 {
        x * x * y
    }

    #[test]
    fn hvp_is_shaped_like_the_gradient_and_hessian_is_rows() {
        let (a, b): (f64, f64) = hvp_h(1.0, 2.0, 1.0, 0.0);
        let rows: Vec<Vec<f64>> = hessian_h(1.0, 2.0);
        assert_eq!((a, b), (4.0, 2.0));
        assert_eq!(rows, vec![vec![4.0, 2.0], vec![2.0, 0.0]]);
    }
}
