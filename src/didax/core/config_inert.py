"""JAX 0.10.2's configuration options that didax accepts, stores and ignores.

Design rules:
- A JAX program sets options didax has no use for (a GPU allocator's, a
  compilation cache's tuning, Pallas's, export's versions...). Refusing
  them would stop the program before it computes anything, and they change
  no number didax computes; so each is accepted (``config.update``,
  ``config.read``, an attribute, its environment variable, a thread's
  override), stored, and has no effect. docs/jit.md lists them.
- The table holds JAX's default of each (an enum's as its lower-case
  name); ``tests/core/test_config_inert.py`` checks it against the
  installed JAX's option names and defaults, so a new JAX's options are
  noticed, not silently refused.
- Options that change what didax computes are not here: they live in
  ``config.OPTIONS`` with their validators and effects.
- The exception: the few that configure the device backend, which is
  JAX's (``jax_num_cpu_devices``, ``jax_platforms``...), are forwarded to
  ``jax.config`` on ``update`` by the lowering layer (``xla.BACKEND_OPTIONS``),
  and so take effect, or fail, as in a JAX program.
"""

from __future__ import annotations

from typing import Final

# Each JAX option didax does not implement, and JAX's default for it.
INERT_OPTIONS: Final[dict[str, object]] = {
    "check_vma": False,
    "eager_constant_folding": False,
    "jax2tf_default_native_serialization": True,
    "jax_backend_target": "",
    "jax_bcoo_cusparse_lowering": False,
    "jax_captured_constants_report_frames": 0,
    "jax_captured_constants_warn_bytes": 2000000000,
    "jax_check_proxy_envs": True,
    "jax_check_static_indices": False,
    "jax_compilation_cache_check_contents": False,
    "jax_compilation_cache_expect_pgle": False,
    "jax_compilation_cache_include_metadata_in_key": False,
    "jax_compilation_cache_max_size": -1,
    "jax_compiler_detailed_logging_min_ops": 10,
    "jax_compiler_enable_remat_pass": True,
    "jax_cpu_enable_async_dispatch": True,
    "jax_cpu_get_global_topology_timeout_minutes": 5,
    "jax_cpu_get_local_topology_timeout_minutes": 2,
    "jax_cross_host_transfer_socket_address": "",
    "jax_cross_host_transfer_timeout_seconds": None,
    "jax_cross_host_transfer_transfer_size": None,
    "jax_cross_host_transport_addresses": "",
    "jax_cuda_visible_devices": "all",
    "jax_custom_vjp3": False,
    "jax_debug_leaked_clients_on_clear_backends": False,
    "jax_debug_log_modules": "",
    "jax_disable_bwd_checks": False,
    "jax_disable_most_optimizations": False,
    "jax_disable_vmap_shmap_error": False,
    "jax_disallow_mesh_context_manager": False,
    "jax_distributed_debug": False,
    "jax_dump_ir_modes": "stablehlo",
    "jax_dump_ir_to": "",
    "jax_embedded_constants_max_bytes": 32,
    "jax_enable_compilation_cache": True,
    "jax_enable_pgle": False,
    "jax_enable_preemption_service": True,
    "jax_enable_recoverability": False,
    "jax_error_checking_behavior_divide": "ignore",
    "jax_error_checking_behavior_nan": "ignore",
    "jax_error_checking_behavior_oob": "ignore",
    "jax_exec_time_optimization_effort": 0.0,
    "jax_experimental_unsafe_xla_runtime_errors": False,
    "jax_explicit_x64_dtypes": "warn",
    "jax_export_calling_convention_version": 10,
    "jax_export_ignore_forward_compatibility": False,
    "jax_force_dcn_cross_host_transfers": False,
    "jax_high_dynamic_range_gumbel": False,
    "jax_hlo_source_file_canonicalization_regex": None,
    "jax_include_debug_info_in_dumps": True,
    "jax_include_full_tracebacks_in_locations": True,
    "jax_log_checkpoint_residuals": False,
    "jax_logging_level": "NOTSET",
    "jax_memory_fitting_effort": 0.0,
    "jax_memory_fitting_level": "O2",
    "jax_mock_gpu_topology": "",
    "jax_mosaic_allow_hlo": False,
    "jax_mutable_array_checks": True,
    "jax_num_cpu_devices": -1,
    "jax_oneapi_visible_devices": "all",
    "jax_optimization_level": "UNKNOWN",
    "jax_pallas_enable_debug_checks": False,
    "jax_pallas_poison_buffers": False,
    "jax_pallas_use_mosaic_gpu": True,
    "jax_pallas_verbose_errors": False,
    "jax_persistent_cache_enable_xla_caches": "xla_gpu_per_fusion_autotune_cache_dir",
    "jax_persistent_cache_min_compile_time_secs": 1.0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
    "jax_pgle_aggregation_percentile": 90,
    "jax_pgle_profiling_runs": 3,
    "jax_pjrt_client_create_options": None,
    "jax_platform_name": "",
    "jax_platforms": None,
    "jax_pprint_use_color": True,
    "jax_ragged_dot_use_gpu_pallas_triton_lowering": False,
    "jax_ragged_dot_use_ragged_dot_instruction": True,
    "jax_raise_persistent_cache_errors": False,
    "jax_random_seed_offset": 0,
    "jax_refs_to_pins": False,
    "jax_remat3": False,
    "jax_remove_custom_partitioning_ptr_from_cache_key": False,
    "jax_rocm_visible_devices": "all",
    "jax_scan3": False,
    "jax_send_traceback_to_runtime": "off",
    "jax_serialization_version": 0,
    "jax_share_binary_between_hosts": False,
    "jax_share_binary_between_hosts_timeout_ms": 1200000,
    "jax_sort_devices_by_process_index": True,
    "jax_source_url_schema": None,
    "jax_threefry_gpu_kernel_lowering": False,
    "jax_traceback_filtering": "auto",
    "jax_traceback_in_locations_limit": 100,
    "jax_tracer_error_num_traceback_frames": 5,
    "jax_use_direct_linearize": True,
    "jax_use_emit_pipeline_primitive": False,
    "jax_use_magma": "auto",
    "jax_use_shardy_partitioner": True,
    "jax_use_simplified_jaxpr_constants": False,
    "jax_xla_backend": "",
    "jax_xla_profile_version": 0,
    "mock_num_gpu_processes": 0,
}
