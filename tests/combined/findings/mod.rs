//! The random-program tester's minimized findings (`diffx-fuzz`, issue 15), kept as it reported
//! them: each file is a program whose `main` checks the values and derivatives that were wrong
//! (A2, T, U, W, Z, AC, AD and AE silently) or a form that did not compile. Each runs here as a test.

#![allow(
    clippy::assign_op_pattern,
    clippy::collapsible_if,
    clippy::collapsible_match,
    clippy::needless_else,
    clippy::needless_range_loop,
    clippy::neg_multiply,
    clippy::useless_vec,
    clippy::never_loop,
    clippy::single_match,
    clippy::let_and_return,
    clippy::approx_constant,
    unused
)]

mod a2 {
    include!("a2_integer_work_in_loop_dropped.rs");
}

#[test]
fn a2_integer_work_in_loop_dropped() {
    a2::main();
}

mod ae {
    include!("ae_changing_method_in_folded_constant.rs");
}

#[test]
fn ae_changing_method_in_folded_constant() {
    ae::main();
}

mod af {
    include!("af_valueless_loop_ending_an_arm.rs");
}

#[test]
fn af_valueless_loop_ending_an_arm() {
    af::main();
}

mod ag {
    include!("ag_float_method_on_a_shadowed_constant.rs");
}

#[test]
fn ag_float_method_on_a_shadowed_constant() {
    ag::main();
}

mod ab {
    include!("ab_chain_loop_over_constant_slice.rs");
}

#[test]
fn ab_chain_loop_over_constant_slice() {
    ab::main();
}

mod ac {
    include!("ac_constant_vector_changed_after_read.rs");
}

#[test]
fn ac_constant_vector_changed_after_read() {
    ac::main();
}

mod ad {
    include!("ad_parameter_place_returned.rs");
}

#[test]
fn ad_parameter_place_returned() {
    ad::main();
}

mod e2 {
    include!("e2_loop_with_inner_jump_last_in_block.rs");
}

#[test]
fn e2_loop_with_inner_jump_last_in_block() {
    e2::main();
}

mod e3 {
    include!("e3_constant_statement_after_jumps.rs");
}

#[test]
fn e3_constant_statement_after_jumps() {
    e3::main();
}

mod j2 {
    include!("j2_iter_deref_in_assert.rs");
}

#[test]
fn j2_iter_deref_in_assert() {
    j2::main();
}

mod l2 {
    include!("l2_constant_vector_written_in_loop_in_arm.rs");
}

#[test]
fn l2_constant_vector_written_in_loop_in_arm() {
    l2::main();
}

mod o {
    include!("o_jump_in_value_arm.rs");
}

#[test]
fn o_jump_in_value_arm() {
    o::main();
}

mod p {
    include!("p_path_form_on_constant.rs");
}

#[test]
fn p_path_form_on_constant() {
    p::main();
}

mod q {
    include!("q_match_on_bool_from_floats.rs");
}

#[test]
fn q_match_on_bool_from_floats() {
    q::main();
}

mod r {
    include!("r_log_with_constant_base.rs");
}

#[test]
fn r_log_with_constant_base() {
    r::main();
}

mod s {
    include!("s_piecewise_function_in_path_form.rs");
}

#[test]
fn s_piecewise_function_in_path_form() {
    s::main();
}

mod t {
    include!("t_constant_return_in_loop_ignored.rs");
}

#[test]
fn t_constant_return_in_loop_ignored() {
    t::main();
}

mod u {
    include!("u_break_after_jump_ignored.rs");
}

#[test]
fn u_break_after_jump_ignored() {
    u::main();
}

mod v2 {
    include!("v2_integer_loop_with_jump_in_arm.rs");
}

#[test]
fn v2_integer_loop_with_jump_in_arm() {
    v2::main();
}

mod v {
    include!("v_inert_if_last_in_arm.rs");
}

#[test]
fn v_inert_if_last_in_arm() {
    v::main();
}

mod w {
    include!("w_shadowed_wrt_excluded_parameter.rs");
}

#[test]
fn w_shadowed_wrt_excluded_parameter() {
    w::main();
}

mod x {
    include!("x_constant_assigned_to_typed_variable.rs");
}

#[test]
fn x_constant_assigned_to_typed_variable() {
    x::main();
}

mod z {
    include!("z_compound_assignment_to_constant_loses_parentheses.rs");
}

#[test]
fn z_compound_assignment_to_constant_loses_parentheses() {
    z::main();
}

mod ah {
    include!("ah_element_written_after_an_if.rs");
}

#[test]
fn ah_element_written_after_an_if() {
    ah::main();
}

mod ai {
    include!("ai_constant_vector_recorded_out_of_an_if.rs");
}

#[test]
fn ai_constant_vector_recorded_out_of_an_if() {
    ai::main();
}

mod aj {
    include!("aj_call_in_a_loop_of_an_if_that_recomputes.rs");
}

#[test]
fn aj_call_in_a_loop_of_an_if_that_recomputes() {
    aj::main();
}

mod ak {
    include!("ak_first_contribution_assigned_into_the_callers_adjoint.rs");
}

#[test]
fn ak_first_contribution_assigned_into_the_callers_adjoint() {
    ak::main();
}

mod al {
    include!("al_count_converted_beside_a_differentiable_element.rs");
}

#[test]
fn al_count_converted_beside_a_differentiable_element() {
    al::main();
}

mod am {
    include!("am_struct_tangent_passed_to_two_methods.rs");
}

#[test]
fn am_struct_tangent_passed_to_two_methods() {
    am::main();
}

mod an {
    include!("an_struct_result_receiver_moved_at_second_order.rs");
}

#[test]
fn an_struct_result_receiver_moved_at_second_order() {
    an::main();
}

mod ao {
    include!("ao_constant_loop_cell_read_after_a_recording_if.rs");
}

#[test]
fn ao_constant_loop_cell_read_after_a_recording_if() {
    ao::main();
}

mod ap {
    include!("ap_float_literal_assigned_to_an_untyped_constant.rs");
}

#[test]
fn ap_float_literal_assigned_to_an_untyped_constant() {
    ap::main();
}

mod aq {
    include!("aq_vector_changed_in_place_recorded_by_an_arm.rs");
}

#[test]
fn aq_vector_changed_in_place_recorded_by_an_arm() {
    aq::main();
}

mod ar {
    include!("ar_counter_popped_then_read_by_name_only.rs");
}

#[test]
fn ar_counter_popped_then_read_by_name_only() {
    ar::main();
}

mod as_ {
    include!("as_counter_decided_by_an_if_read_by_name.rs");
}

#[test]
fn as_counter_decided_by_an_if_read_by_name() {
    as_::main();
}

mod at {
    include!("at_while_condition_evaluated_after_a_break.rs");
}

#[test]
fn at_while_condition_evaluated_after_a_break() {
    at::main();
}

mod au {
    include!("au_compound_assignment_to_a_constant_element.rs");
}

#[test]
fn au_compound_assignment_to_a_constant_element() {
    au::main();
}

mod av {
    include!("av_piecewise_constant_of_a_changing_constant.rs");
}

#[test]
fn av_piecewise_constant_of_a_changing_constant() {
    av::main();
}

mod aw {
    include!("aw_constant_vector_written_with_a_changing_constant.rs");
}

#[test]
fn aw_constant_vector_written_with_a_changing_constant() {
    aw::main();
}
