/*
 * namespace.h: gives the library's internal functions names in clfold's
 * namespace, without renaming them in the code.
 *
 * Why: the shared library hides them (C_VISIBILITY_PRESET hidden, CLFOLD_API
 * marks the public API), but a static libclfold.a cannot hide anything: every
 * non-static function of src/core/ and src/reduce/ is a global symbol of the archive, and a
 * short name such as `fail` or `type_info` would clash with a function of the
 * same name in the program that links it. With these lines the archive
 * defines `clfold_internal_fail` and so on, and every global symbol of the
 * library starts with `clfold_`. `.ci/packaging.sh` checks that with nm.
 *
 * Rule: a new non-static function (or global variable) in a .c file of the
 * library needs a line here. This header comes first in every internal
 * header (internal.h, types.h, program.h, device.h, accumulator.h, path.h),
 * and the file that cmake/EmbedCL.cmake generates includes it, so every file
 * of the library sees the same names. Only the library's own files include it: users,
 * tests and the runner see the public API of clfold.h alone.
 */
#ifndef CLFOLD_NAMESPACE_H
#define CLFOLD_NAMESPACE_H

/* accumulator.c */
#define accumulator_choose clfold_internal_accumulator_choose
#define accumulator_finish clfold_internal_accumulator_finish
#define accumulator_fold clfold_internal_accumulator_fold
#define accumulator_move_index clfold_internal_accumulator_move_index
#define accumulator_size clfold_internal_accumulator_size

/* clock.c */
#define monotonic_seconds clfold_internal_monotonic_seconds

/* exact.c */
#define exact_format_of clfold_internal_exact_format_of
#define exact_state_bytes clfold_internal_exact_state_bytes
#define exact_state_merge clfold_internal_exact_state_merge
#define exact_state_round clfold_internal_exact_state_round

/* device.c */
#define device_apply_settings clfold_internal_device_apply_settings
#define device_check_block clfold_internal_device_check_block
#define device_read_caps clfold_internal_device_read_caps
#define device_select clfold_internal_device_select

/* reduce/: the paths (path.h) */
#define add_run clfold_internal_add_run
#define host_chunk_elements clfold_internal_host_chunk_elements
#define host_input_buffer clfold_internal_host_input_buffer
#define atomic_run clfold_internal_atomic_run
#define atomic_shape clfold_internal_atomic_shape
#define block_fitting clfold_internal_block_fitting
#define block_fitting_local clfold_internal_block_fitting_local
#define block_values_bytes clfold_internal_block_values_bytes
#define check_arg_length clfold_internal_check_arg_length
#define check_buffer clfold_internal_check_buffer
#define check_request clfold_internal_check_request
#define check_result clfold_internal_check_result
#define cpu_bind clfold_internal_cpu_bind
#define cpu_lanes clfold_internal_cpu_lanes
#define cpu_source clfold_internal_cpu_source
#define cpu_streams clfold_internal_cpu_streams
#define cpu_run clfold_internal_cpu_run
#define cpu_shape clfold_internal_cpu_shape
#define divide_up clfold_internal_divide_up
#define gpu_bind clfold_internal_gpu_bind
#define gpu_groups clfold_internal_gpu_groups
#define gpu_run clfold_internal_gpu_run
#define gpu_shape clfold_internal_gpu_shape
#define k7_shape clfold_internal_k7_shape
#define landing_arm clfold_internal_landing_arm
#define landing_is_direct clfold_internal_landing_is_direct
#define landing_prepare clfold_internal_landing_prepare
#define landing_release clfold_internal_landing_release
#define landing_target clfold_internal_landing_target
#define landing_wait clfold_internal_landing_wait
#define launch_kernel clfold_internal_launch_kernel
#define pass_launch clfold_internal_pass_launch
#define pass_log_release clfold_internal_pass_log_release
#define passes_run clfold_internal_passes_run
#define path_choose clfold_internal_path_choose
#define path_of_kernel clfold_internal_path_of_kernel
#define scratch_abandon clfold_internal_scratch_abandon
#define scratch_acquire clfold_internal_scratch_acquire
#define scratch_all_free clfold_internal_scratch_all_free
#define scratch_forget_tickets clfold_internal_scratch_forget_tickets
#define scratch_hold clfold_internal_scratch_hold
#define scratch_partials clfold_internal_scratch_partials
#define scratch_release_all clfold_internal_scratch_release_all
#define scratch_tickets clfold_internal_scratch_tickets
#define sums_small_integers clfold_internal_sums_small_integers
#define take_waits clfold_internal_take_waits
#define tree_bind_local clfold_internal_tree_bind_local
#define tree_groups_one clfold_internal_tree_groups_one
#define tree_groups_two clfold_internal_tree_groups_two
#define tree_shape clfold_internal_tree_shape
#define values_launch clfold_internal_values_launch

/* settings.c */
#define settings_read clfold_internal_settings_read
#define settings_release clfold_internal_settings_release

/* program.c */
#define program_cache_release clfold_internal_program_cache_release
#define program_kernel clfold_internal_program_kernel

/* ptx.c */
#define ptx_entries clfold_internal_ptx_entries
#define ptx_with_directive clfold_internal_ptx_with_directive

/* status.c */
#define clear_error clfold_internal_clear_error
#define keep_create_error clfold_internal_keep_create_error
#define fail clfold_internal_fail

/* types.c (this also renames the tag `struct type_info`, consistently) */
#define accumulator_type clfold_internal_accumulator_type
#define identity_value clfold_internal_identity_value
#define op_define clfold_internal_op_define
#define op_is_bitwise clfold_internal_op_is_bitwise
#define op_is_arg clfold_internal_op_is_arg
#define op_is_valid clfold_internal_op_is_valid
#define type_info clfold_internal_type_info

/* partial.c */
#define partial_pack clfold_internal_partial_pack

/* embedded_sources.c, generated by cmake/EmbedCL.cmake */
#define embedded_source clfold_internal_embedded_source

/* scan/: the scan paths (scan_path.h) */
#define scan_enqueue clfold_internal_scan_enqueue
#define scan_job_make clfold_internal_scan_job_make
#define scan_local_values clfold_internal_scan_local_values
#define scan_path_choose clfold_internal_scan_path_choose
#define scan_tile clfold_internal_scan_tile

#endif /* CLFOLD_NAMESPACE_H */
