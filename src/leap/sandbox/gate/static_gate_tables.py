"""Name tables for the static gate: what a candidate may import, reference and call.

Qualified names are dotted paths as the candidate imports them (``torch.nn.functional.relu``).
A prefix entry ``"torch.distributed"`` covers everything below it.
"""

from __future__ import annotations

# Import roots a candidate may import at all (anything else is rejected).
ALLOWED_IMPORT_ROOTS = frozenset({
    "torch", "triton", "numpy", "cupy", "cuda", "math", "cmath", "typing", "typing_extensions",
    "functools", "itertools", "collections", "dataclasses", "enum", "__future__", "operator",
    "numbers", "abc", "os", "sys", "copy", "struct", "warnings", "textwrap", "string",
})

# Qualified names (and everything below them) that are rejected wherever they appear.
FORBIDDEN_PREFIXES = (
    # processes, threads, distributed, compilation into PyTorch's own kernels
    "torch.multiprocessing", "torch.distributed", "torch.compile", "torch.compiler", "torch.jit",
    "torch.fx", "torch.export", "torch.utils.data", "torch.hub", "torch.library", "torch.overrides",
    "torch.testing", "torch.profiler", "torch.autograd.profiler", "torch.utils.cpp_extension.load",
    "torch.utils.benchmark", "torch.utils.checkpoint",
    # global state and RNG
    "torch.manual_seed", "torch.seed", "torch.initial_seed", "torch.random", "torch.get_rng_state",
    "torch.set_rng_state", "torch.Generator", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
    "torch.cuda.set_rng_state", "torch.cuda.get_rng_state", "torch.cuda.seed",
    "torch.use_deterministic_algorithms", "torch.autocast", "torch.cuda.amp", "torch.amp", "torch.cpu.amp",
    "torch.cuda.set_per_process_memory_fraction", "torch.cuda.memory", "torch.cuda.caching_allocator_alloc",
    "torch.cuda.set_device", "torch.set_default_device",
    # streams and graphs
    "torch.Stream", "torch.cuda.Stream", "torch.cuda.streams", "torch.cuda.ExternalStream",
    "torch.cuda.set_stream", "torch.cuda.stream", "torch.cuda.default_stream", "torch.cuda.CUDAGraph",
    "torch.cuda.graph", "torch.cuda.graphs", "torch.cuda.make_graphed_callables", "torch.cuda.jiterator",
    # file I/O
    "torch.load", "torch.save", "torch.from_file", "torch.storage",
    "numpy.load", "numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.fromfile", "numpy.loadtxt",
    "numpy.savetxt", "numpy.genfromtxt", "numpy.memmap", "numpy.ctypeslib", "numpy.lib", "numpy.random",
    "numpy.DataSource", "numpy.testing", "numpy.fromregex", "numpy.rec", "numpy.core", "numpy._core",
    "numpy.ma.mrecords", "numpy.recfromtxt", "numpy.recfromcsv",
    "cupy.load", "cupy.save", "cupy.savez", "cupy.fromfile", "cupy.random", "cupy.testing",
    "cupy.cuda.Stream", "cupy.cuda.stream", "cupy.cuda.runtime", "cupy.cuda.driver", "cupy.cuda.graph",
    "cupy.cuda.set_allocator", "cupy.cuda.set_pinned_memory_allocator", "cupy.cuda.MemoryPool",
    "cuda.bindings", "cuda.cuda", "cuda.cudart",
    "triton.testing", "triton._C", "triton.runtime.cache", "triton.runtime.autotuner",
    # attribute access by string, PyTorch compute outside the analysed names
    "operator.attrgetter", "operator.methodcaller", "torch.cuda.comm", "torch.cuda.nccl", "torch.cuda.jiterator",
    "torch.func", "torch.vmap", "torch.nn.utils.stateless", "torch.utils._pytree", "functools.singledispatch",
    "functools.singledispatchmethod", "string.Formatter",
    # PyTorch compute behind an attribute read (a parametrized `layer.weight` runs its modules on each read)
    "torch.nn.utils.parametrize", "torch.nn.utils.parametrizations", "torch.nn.utils.weight_norm",
    "torch.nn.utils.spectral_norm",
    # copies one object's attributes into another's (a tensor's own `detach` shadowing the method)
    "functools.update_wrapper",
    # stores through a function (a table filled with tensors while it is typed by its literal)
    "operator.setitem", "operator.delitem", "operator.__setitem__", "operator.__delitem__",
    *(f"operator.{p}i{op}{s}" for op in ("add", "and", "concat", "floordiv", "lshift", "mod", "mul", "matmul", "or",
                                        "pow", "rshift", "sub", "truediv", "xor") for p, s in (("", ""), ("__", "__"))),
    # library modules that run processes, compilers or write files (torch.utils.collect_env.run is a shell)
    "torch.utils.collect_env", "torch.utils.tensorboard", "torch.onnx", "torch.package", "torch.utils.model_zoo",
    "torch.utils.bottleneck", "torch.serialization", "torch.utils.show_pickle", "numpy.f2py", "numpy.distutils",
    "triton.compiler", "triton.runtime.build", "triton.backends", "triton.tools",
    # warnings' formatters read any file's lines through linecache (a file read without `open`)
    "warnings.formatwarning", "warnings.showwarning", "warnings.warn_explicit", "warnings.WarningMessage",
    "warnings._showwarnmsg", "warnings._showwarnmsg_impl", "warnings._formatwarnmsg", "warnings._formatwarnmsg_impl",
    "warnings._formatwarning_orig", "warnings._showwarning_orig",
    # evaluation of strings (annotations are evaluated as Python expressions in the module's globals)
    "typing.get_type_hints", "typing.ForwardRef", "typing.evaluate_forward_ref", "typing_extensions.get_type_hints",
    "typing_extensions.ForwardRef", "typing_extensions.evaluate_forward_ref", "typing_extensions.get_annotations",
)
# exceptions to `FORBIDDEN_PREFIXES`: Triton's host-side tensor descriptor (a kernel argument describing a
# tensor's blocks, as in Triton's persistent-matmul tutorial) and the autocast markers
# autograd.Function's autocast markers (without ``cast_inputs``, refused by `static_policy`: a conversion)
AMP_MARKERS = ("torch.amp.custom_fwd", "torch.amp.custom_bwd", "torch.cuda.amp.custom_fwd",
               "torch.cuda.amp.custom_bwd")
ALLOWED_UNDER_FORBIDDEN = ("triton.tools.tensor_descriptor", *AMP_MARKERS)
# os and sys: only these names.
OS_ALLOWED = frozenset({"os", "os.environ", "os.path", "os.path.join", "os.path.basename", "os.path.dirname",
                        "os.path.splitext", "os.cpu_count", "os.sep", "os.name", "os.linesep", "os.pathsep"})
SYS_ALLOWED = frozenset({"sys", "sys.version", "sys.version_info", "sys.platform", "sys.maxsize",
                         "sys.float_info", "sys.int_info", "sys.byteorder", "sys.hexversion",
                         "sys.implementation"})

# Constructors of new streams (wrapping torch's current stream is fine: Stream.from_handle, create_stream(s)).
STREAM_CTORS = frozenset({"cuda.core.experimental.Stream", "cuda.core.Stream"})

# Environment variables a candidate may set (build settings for load_inline); it may read none.
ENV_WRITABLE = frozenset({"TORCH_CUDA_ARCH_LIST", "MAX_JOBS"})

FORBIDDEN_BUILTINS = frozenset({
    "exec", "eval", "compile", "__import__", "open", "globals", "locals", "vars", "breakpoint", "input",
    "exit", "quit", "id", "help", "__builtins__", "__loader__", "__spec__", "__file__", "__cached__",
})
# Builtins that reach attributes or namespaces by a computed name: only called directly, with a constant
# name where they take one; never used as a value (``g = getattr``) and never rebound (``def getattr``).
DYNAMIC_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr", "vars", "dir", "globals", "locals",
                              "eval", "exec", "compile", "__import__", "type", "super"})
# Names the analysis gives a meaning of its own: rebinding them (assignment, def, parameter, import as)
# is refused.
PROTECTED_NAMES = DYNAMIC_BUILTINS | {"range", "object", "__builtins__", "__build_class__", "staticmethod"}
# Attributes whose names start and end with "__" are rejected except these.
ALLOWED_DUNDER_ATTRS = frozenset({"__init__", "__name__", "__qualname__", "__doc__", "__version__",
                                  "__cuda_array_interface__", "__dlpack__", "__dlpack_device__"})
# Dunder methods a candidate class may define.
ALLOWED_DUNDER_DEFS = frozenset({"__init__", "__post_init__", "__repr__", "__str__", "__call__", "__getitem__", "__len__",
                                 "__iter__", "__enter__"})
# Attributes of frames, code objects, generators, coroutines, async generators and tracebacks (``gi_frame``,
# ``f_back``, ``f_globals``, ``tb_frame``, ``co_consts``, ...): they reach the harness's frames, its locals
# and its modules. Refused on any object, whatever its kind, as dunders are.
INTROSPECTION_PREFIXES = ("gi_", "cr_", "ag_", "tb_", "co_")
INTROSPECTION_ATTRS = frozenset({"f_back", "f_locals", "f_globals", "f_builtins", "f_code", "f_lasti", "f_lineno",
                                 "f_trace", "f_trace_lines", "f_trace_opcodes", "f_generator", "with_traceback",
                                 "tb_frame", "tb_next"})
# File I/O through methods (numpy's ndarray.tofile/dump, torch storages' from_file, save*/load* of any
# object): refused on any object outside kernel bodies, except these names.
IO_METHODS = frozenset({"tofile", "fromfile", "from_file", "to_file", "dump", "dumps", "memmap", "open_memmap"})
IO_PREFIXES = ("save", "load")
IO_ALLOWED = frozenset({"save_for_backward", "save_for_forward", "saved_tensors", "saved_variables", "load_inline"})
# Method names rejected on any object.
FORBIDDEN_METHODS = frozenset({"as_subclass", "_make_subclass", "_make_wrapper_subclass", "record_stream",
                               "wait_stream", "set_", "untyped_storage", "storage",
                               "_typed_storage", "share_memory_", "register_forward_hook",
                               "register_forward_pre_hook", "register_full_backward_hook",
                               "register_full_backward_pre_hook", "register_backward_hook",
                               # global module hooks and Triton's launch hooks run code at every call
                               "register_module_forward_hook", "register_module_forward_pre_hook",
                               "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
                               "register_module_backward_hook", "register_module_buffer_registration_hook",
                               "register_module_module_registration_hook",
                               "register_module_parameter_registration_hook", "add_pre_run_hook",
                               "register_state_dict_pre_hook", "register_load_state_dict_post_hook",
                               "_call_impl", "_wrapped_call_impl"})

TORCH_DTYPES = frozenset({
    "float32", "float", "float16", "half", "bfloat16", "float64", "double", "int8", "int16", "short",
    "int32", "int", "int64", "long", "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
    "complex128", "cfloat", "cdouble", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "qint8", "quint8", "strided", "contiguous_format", "channels_last", "preserve_format",
})
# torch.X functions that allocate (always allowed in the data path).
TORCH_ALLOC = frozenset({"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
                         "full", "full_like", "arange", "tensor", "as_tensor", "asarray", "scalar_tensor",
                         "empty_permuted"})
# torch.X functions that are views or shape handling.
TORCH_VIEWS = frozenset({"reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "transpose", "permute",
                         "t", "narrow", "select", "split", "chunk", "unbind", "movedim", "moveaxis",
                         "swapaxes", "swapdims", "view_as_real", "view_as_complex", "as_strided",
                         "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "tensor_split",
                         "detach", "clone"})
# data movement that copies values without computing them (joined, padded with a constant, reversed, rolled):
# views for the analysis; the run-time backstop's allow-list holds the aten ops they reach
TORCH_MOVEMENT = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack",
                            "torch.vstack", "torch.flip", "torch.roll", "torch.nn.functional.pad"})
# torch.X that return Python values or are types, context managers and device helpers.
TORCH_QUERIES = frozenset({"is_tensor", "is_floating_point", "is_complex", "numel", "get_default_dtype",
                           "result_type", "promote_types", "can_cast", "finfo", "iinfo", "Size", "device",
                           "dtype", "Tensor", "no_grad", "inference_mode", "enable_grad", "is_grad_enabled", "set_grad_enabled",
                           "broadcast_shapes", "SymInt", "typename", "layout", "memory_format"})
# Safe torch namespaces and how many names deep below them a safe member is (a longer chain, or one that
# names a module, re-enters a library through an attribute: ``torch.nn.init.torch.relu``).
TORCH_SAFE_PREFIXES = {"torch.cuda": 2, "torch.version": 1, "torch.backends": 3, "torch.nn.Module": 1,
                       "torch.nn.Parameter": 0, "torch.nn.Buffer": 0, "torch.nn.ParameterList": 0,
                       "torch.nn.ParameterDict": 0, "torch.nn.ModuleList": 0, "torch.nn.ModuleDict": 0,
                       "torch.nn.init": 1, "torch.autograd.Function": 1, "torch.autograd.function": 1,
                       "torch.utils.cpp_extension": 1, "torch.types": 1, "torch.__version__": 0,
                       "torch.nn.parameter": 1, "torch.nn.modules.module": 1, "torch.utils.dlpack": 1}
# private helpers that compute on shapes only (nn.Linear's own `reset_parameters` uses the first)
PRIVATE_ALLOWED = frozenset({"torch.nn.init._calculate_fan_in_and_fan_out", "torch.nn.init._calculate_correct_fan"})
VERSION_STR_METHODS = frozenset({"split", "startswith", "endswith", "partition", "strip", "lower", "replace",
                                 "count", "find", "isdigit"})
# Safe torch names that may take a tensor (wrapping or handing it over, never computing on it).
TORCH_SAFE_TENSOR_CALLS = frozenset({"Parameter", "Buffer", "to_dlpack", "from_dlpack", "ParameterList",
                                     "ParameterDict", "synchronize", "device", "current_stream",
                                     "get_device_properties", "is_available", "device_count", "current_device",
                                     "__init__"})
# Names of modules: one of them after the first name of a qualified name re-enters a library through an
# attribute (``torch.nn.init.torch``, ``torch.cuda.os``); such a name is refused wherever it appears.
REENTRY_NAMES = frozenset({
    "torch", "numpy", "np", "cupy", "cp", "triton", "os", "sys", "operator", "functools", "itertools",
    "warnings", "typing", "copy", "struct", "collections", "importlib", "inspect", "builtins", "ctypes",
    "subprocess", "socket", "io", "pickle", "threading", "multiprocessing", "time", "gc", "weakref",
    "contextlib", "dataclasses", "re", "json", "pathlib", "shutil", "signal", "atexit", "random", "types",
    "F", "tl", "dis", "marshal", "runpy", "pkgutil", "platform", "logging", "traceback", "tempfile", "glob",
    "queue", "asyncio", "concurrent", "mmap",
})
# Modules used as plain values (not as ``mod.name``) are refused: a module in a variable escapes the
# name checks (``m = os if c else 0; m.system(...)``). These qualified names are modules.
KNOWN_MODULES = frozenset({
    "torch", "torch.nn", "torch.nn.functional", "torch.cuda", "torch.backends", "torch.backends.cuda",
    "torch.backends.cudnn", "torch.utils", "torch.utils.cpp_extension", "torch.utils.dlpack", "torch.nn.init",
    "torch.autograd", "torch.linalg", "torch.fft", "torch.special", "torch.ops", "torch.ops.aten",
    "torch.version", "torch.nn.modules", "torch.nn.modules.module", "torch.nn.parameter", "torch.types",
    "triton", "triton.language", "triton.language.extra", "triton.language.extra.libdevice",
    "triton.language.extra.cuda", "triton.language.extra.cuda.libdevice", "triton.language.math",
    "triton.runtime", "numpy", "numpy.linalg", "numpy.fft", "cupy", "cupy.cuda", "cuda", "cuda.core",
    "cuda.core.experimental", "math", "cmath", "os", "os.path", "sys", "functools", "itertools", "operator",
    "typing", "typing_extensions", "collections", "dataclasses", "enum", "numbers", "abc", "copy", "struct",
    "warnings", "textwrap", "string",
})

# Tensor methods that are not compute (views, shape and dtype/device queries, allocation-like fills).
TENSOR_SCALAR_METHODS = frozenset({"size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset",
                                   "data_ptr", "element_size", "is_contiguous", "get_device",
                                   "is_floating_point", "is_complex", "dim_order"})
# Tensor methods that read the data out as Python values: the result is data (computing on it is
# computing on the tensor), not a shape.
TENSOR_DATA_METHODS = frozenset({"item", "tolist"})
TENSOR_VIEW_METHODS = frozenset({"view", "view_as", "reshape", "reshape_as", "contiguous", "t", "transpose",
                                 "permute", "unsqueeze", "squeeze", "flatten", "unflatten", "expand",
                                 "expand_as", "narrow", "select", "split", "chunk", "unbind", "as_strided",
                                 "movedim", "new_empty", "new_zeros", "new_ones", "new_full",
                                 "new_empty_strided", "zero_", "fill_", "detach", "cuda", "cpu", "clone", "copy_",
                                 "requires_grad_", "unfold", "diagonal", "__dlpack__", "__dlpack_device__",
                                 "flip", "roll", "repeat",
                                 "squeeze_", "unsqueeze_", "resize_", "T", "mT"})
# View methods that take a tensor (a source, a fill value, a tensor to match): their arguments are not sizes.
TENSOR_ARG_VIEWS = frozenset({"copy_", "fill_", "view_as", "expand_as", "reshape_as", "cuda", "cpu", "detach",
                              "clone", "contiguous", "requires_grad_", "__dlpack__"})
# Views whose number of results depends on the sizes (on tensor data: a count of data).
COUNTING_VIEWS = frozenset({"split", "chunk", "unbind", "unfold", "tensor_split", "diagonal"})
TENSOR_CASTS = frozenset({"float", "half", "bfloat16", "double", "int", "long", "short", "bool", "byte", "char",
                          "type", "type_as"})
TENSOR_SCALAR_ATTRS = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad",
                                 "itemsize", "nbytes", "is_leaf", "names", "__cuda_array_interface__"})
# what a store on a tensor may set: its own data descriptors (no instance attribute is made)
TENSOR_SETTABLE = frozenset({"requires_grad", "data", "grad", "retains_grad", "names", "real", "imag"})
TENSOR_VIEW_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
TORCH_MODULE_TENSOR_ATTRS = frozenset({"weight", "bias", "running_mean", "running_var", "in_proj_weight",
                                       "in_proj_bias"})
# nn.Module methods that bind an attribute by its name (``m.register_buffer("w", t)`` is ``m.w = t``).
ATTR_REGISTERS = frozenset({"register_buffer", "register_parameter", "add_module", "register_module"})
# Settings of torch.nn layers (numbers, tuples, strings, flags): any other attribute of a layer (a buffer
# registered on it, a tensor stored on it) may be a tensor.
TORCH_MODULE_CONFIG_ATTRS = frozenset({
    "in_features", "out_features", "in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
    "groups", "padding_mode", "output_padding", "transposed", "eps", "momentum", "affine", "track_running_stats",
    "num_features", "normalized_shape", "elementwise_affine", "negative_slope", "inplace", "p", "dim", "training",
    "num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse",
    "approximate", "threshold", "value", "beta", "lambd", "min_val", "max_val", "alpha", "num_parameters",
    "upscale_factor", "downscale_factor", "scale_factor", "mode", "align_corners", "output_size",
    "return_indices", "ceil_mode", "count_include_pad", "divisor_override", "start_dim", "end_dim",
    "unflattened_size", "num_heads", "head_dim", "batch_first", "embed_dim", "kdim", "vdim", "dropout",
    "hidden_size", "input_size", "num_layers", "bidirectional", "proj_size", "nonlinearity", "num_groups",
    "num_channels", "reduction", "ignore_index", "label_smoothing", "margin", "size", "recompute_scale_factor",
    "lower", "upper", "use_input_stats", "add_zero_attn", "k", "keepdim", "norm", "d_model", "nhead",
    "dim_feedforward", "in1_features", "in2_features", "output_ratio",
})

# Python builtins that compute on a tensor argument (host-side fallbacks).
BUILTIN_TENSOR_COMPUTE = frozenset({"sum", "min", "max", "abs", "pow", "round", "divmod", "sorted", "map"})
# Builtins that give a Python value of their argument: of a tensor (or of data), that value is data.
BUILTIN_DATA = frozenset({"int", "float", "bool", "complex", "str", "repr", "format", "bytes", "bytearray", "hash",
                          "ord", "chr", "bin", "hex", "oct", "ascii", "range", "memoryview"})
BUILTIN_SCALAR = frozenset({"len", "int", "float", "bool", "str", "isinstance", "issubclass", "hasattr",
                            "callable", "repr", "format", "ord", "chr", "hash", "range", "bin", "hex", "oct",
                            "ascii", "complex"})

# Synonyms for task-allowed ops: allowing the key allows each of these names.
OP_SYNONYMS = {"matmul": {"matmul", "mm", "bmm"}, "linear": {"linear", "addmm"},
               "conv2d": {"conv2d"}, "conv1d": {"conv1d"}, "conv3d": {"conv3d"}}
BINOP_NAMES = {"Add": "add", "Sub": "sub", "Mult": "mul", "Div": "div", "FloorDiv": "floor_divide",
               "Mod": "remainder", "Pow": "pow", "MatMult": "matmul", "BitAnd": "bitwise_and",
               "BitOr": "bitwise_or", "BitXor": "bitwise_xor", "LShift": "bitwise_left_shift",
               "RShift": "bitwise_right_shift"}

# cupy / numpy. Names that may take a tensor or an array: views of it, like-shaped allocation, metadata.
ARRAY_LIB_VIEWS = frozenset({"asarray", "from_dlpack", "fromDlpack", "ascontiguousarray", "empty_like",
                             "zeros_like"})
ARRAY_LIB_META = frozenset({"shape", "ndim", "size", "dtype", "result_type", "iinfo", "finfo", "isscalar",
                            "issubdtype", "can_cast", "promote_types", "get_array_module"})
# Scalar types, and math helpers that give a Python number on numbers (on an array they compute).
ARRAY_LIB_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp",
                              "uintp", "float16", "float32", "float64", "bool_", "dtype"})
# numpy/cupy functions that give a scalar of scalars (np.clip(n, 16, 256)); of a sequence, an array
ARRAY_LIB_ELEMENTWISE = frozenset({"ceil", "floor", "sqrt", "log2", "log10", "log", "exp", "exp2", "abs", "clip",
                                   "minimum", "maximum", "round", "rint", "trunc", "power"})
ARRAY_LIB_SCALAR_FNS = ARRAY_LIB_DTYPES | ARRAY_LIB_ELEMENTWISE | {"prod"}
ARRAY_LIB_SAFE = ARRAY_LIB_VIEWS | ARRAY_LIB_META | ARRAY_LIB_DTYPES  # numeric dtype names are constants
# cupy.cuda names for devices, streams and raw memory: library objects, not arrays.
CUPY_CUDA_OPAQUE = frozenset({"Device", "ExternalStream", "get_current_stream", "MemoryPointer", "UnownedMemory",
                              "Memory", "get_device_id", "Event"})

# Inside a @triton.jit body: the builtins a kernel may use, the attributes a kernel parameter (a pointer,
# an int, a descriptor) may be asked for, and Triton's launch options a grid may read from its meta dict.
JIT_BUILTINS = frozenset({"range", "min", "max", "len", "int", "float", "bool", "abs", "print", "isinstance",
                          "tuple", "enumerate", "zip", "slice", "True", "False", "None", "AssertionError"})
JIT_PARAM_ATTRS = frozenset({"dtype", "type", "to", "cast", "shape", "strides", "block_shape", "element_ty",
                             "base", "load", "store", "value", "atomic_add", "gather", "scatter", "T",
                             "primitive_bitwidth", "scalar", "is_ptr", "is_floating", "is_int"})
# Attributes a value inside a kernel body (a loaded block, a program id, a dtype, a constexpr) may be asked
# for: Triton's tensor methods and its dtype queries. Anything else (``.handle``, ``.data``, ``.frame``,
# ``.get``) reaches the CPU interpreter's Python objects, not Triton.
JIT_VALUE_ATTRS = JIT_PARAM_ATTRS | frozenset({
    "abs", "advance", "argmax", "argmin", "associative_scan", "atomic_and", "atomic_cas", "atomic_load",
    "atomic_max", "atomic_min", "atomic_or", "atomic_poll", "atomic_store", "atomic_xchg", "atomic_xor",
    "broadcast_to", "cdiv", "ceil", "cos", "cumprod", "cumsum", "erf", "exp", "exp2", "expand_dims", "flip",
    "floor", "histogram", "item", "log", "log2", "logical_and", "logical_or", "max", "min", "permute", "ravel",
    "reduce", "reduce_or", "reshape", "rsqrt", "sigmoid", "sin", "softmax", "sort", "split", "sqrt", "sqrt_rn",
    "sum", "trans", "view", "xor_sum", "numel", "name", "int_bitwidth", "fp_mantissa_width", "exponent_bias",
    "is_bf16", "is_block", "is_bool", "is_fp16", "is_fp32", "is_fp64", "is_fp8", "is_int1", "is_int8",
    "is_int16", "is_int32", "is_int64", "is_int_signed", "is_int_unsigned", "is_standard_floating",
    "is_uint8", "is_uint16", "is_uint32", "is_uint64", "is_void", "is_const", "with_element_ty",
    "get_int_max_value", "get_int_min_value", "is_fp8e4nv", "is_fp8e5", "is_fp8e4b15", "is_fp8e4b8",
    "is_fp8e5b16", "kind", "nbytes", "get_block_shapes", "block_type"})
TRITON_LAUNCH_OPTIONS = frozenset({"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
                                   "num_buffers_warp_spec", "num_consumer_groups", "reg_dec_producer",
                                   "reg_inc_consumer", "warp_specialize"})

# C/C++ source checks (CUDA strings given to load_inline / NVRTC).
CPP_ALLOWED_TORCH_CALLS = frozenset({"empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full",
                                     "full_like", "empty_strided", "dtype", "device", "scalar_tensor",
                                     "from_blob", "arange", "tensor", "zero_", "fill_", "requires_grad",
                                     "layout", "kCUDA", "check", "TensorOptions"})
CPP_FORBIDDEN_PATTERNS = (
    (r"(?<!std::)(?<!\.)\b(?:fork|vfork|system|popen|execvp?e?|execl[pe]?|socket|connect|fopen|freopen|dlopen|dlsym|"
     r"pthread_create|ptrace|syscall|getenv|setenv|putenv|atexit|kill|mmap|unlink|remove)\s*\(",
     "process, file or network call in C++ source"),
    (r"\bstd::(?:thread|async|jthread|ifstream|ofstream|fstream|filesystem|system)\b",
     "thread or file use in C++ source"),
    (r"#\s*include\s*[<\"](?:thread|future|fstream|filesystem|unistd\.h|sys/[\w/]+\.h|netinet/\w+\.h|"
     r"arpa/\w+\.h|dlfcn\.h|pthread\.h|netdb\.h|spawn\.h|signal\.h|csignal|fcntl\.h|dirent\.h|"
     r"link\.h|elf\.h|ifaddrs\.h|net/\w+\.h|linux/\w+\.h|asm/\w+\.h|poll\.h|termios\.h|pwd\.h|grp\.h)[>\"]",
     "forbidden header in C++ source"),
    (r"(?<!std::)(?<!\.)\b(?:open|openat|creat|fdopen|pipe2?|dup2?|fcntl|ioctl|chmod|chown|rename|symlink|mkdir|rmdir|chdir|"
     r"setuid|setgid|seteuid|prctl|clone|sigaction|opendir|readdir|fwrite|fread|fputs|fgets|"
     r"posix_spawnp?|waitpid|sched_setaffinity)\s*\(", "process, file or system call in C++ source"),
    (r"\b(?:asm|__asm__|__asm)\b", "inline assembly in C++ source"),
    (r"\b(?:cudaStreamCreate\w*|cuStreamCreate\w*|getStreamFromPool|cudaGraph\w*|cuGraph\w*|"
     r"cudaDeviceSetLimit|cudaSetDevice|cudaDeviceReset|cudaFree\b|cudaFreeAsync)\b",
     "stream, graph or device-state call in C++ source"),
)
# Host memory the device reads and writes directly (managed, pinned, mapped): the answer computed on the
# host through it never shows as a copy. Copies to the host are caught at run time instead (the forward
# profile's device-to-host bytes: `worker/kernel_fraction.profile_forward`), whatever code makes them.
CPP_HOST_MEMORY = (r"\b(?:cudaMallocManaged|cudaMallocHost|cudaHostAlloc|cudaHostRegister|cudaHostGetDevicePointer|"
                   r"cuMemAllocManaged|cuMemAllocHost|cuMemHostAlloc|cuMemHostRegister|cuMemHostGetDevicePointer)\b")
# A string constant with one of these is scanned as C/C++ (so is any other with ";" and "(").
CPP_MARKERS = ("__global__", "#include", "torch::", "at::", "__device__", "extern \"C\"", "#define", "#pragma")
CPP_TORCH_CALL = r"\b(?:torch|at)::(?:nn::)?(?:functional::)?([a-z_][A-Za-z0-9_]*)\s*\("
CPP_TENSOR_METHOD = (r"\.\s*(matmul|mm|bmm|addmm|conv[123]d|relu_?|sigmoid_?|tanh_?|softmax|log_softmax|sum|"
                     r"mean|exp_?|log_?|add_?|sub_?|mul_?|div_?|pow_?|sqrt_?|clamp_?|neg_?|abs_?|gelu|silu|"
                     r"layer_norm|linear|copy_|clone|index_select|gather|masked_fill_?|where|cumsum|prod|"
                     r"argmax|argmin|amax|amin|norm|var|std|max_pool2d|avg_pool2d|softplus)\s*\(")


def reentry(q: str) -> str | None:
    """The module a qualified name re-enters through an attribute (``torch.nn.init.torch.relu`` -> torch):
    a module's name after the first name and followed by another (``numpy.copy`` alone is a function)."""
    parts = q.split(".")
    return next((p for p in parts[1:-1] if p in REENTRY_NAMES), None)


def is_module(q: str) -> bool:
    """``q`` names a module (a known one, or a library re-entered through an attribute)."""
    return q in KNOWN_MODULES or "." in q and q.split(".")[-1] in _MODULE_TAILS


_MODULE_TAILS = frozenset({"torch", "numpy", "np", "cupy", "cp", "triton", "os", "sys", "builtins", "importlib",
                           "inspect", "ctypes", "subprocess", "socket", "io", "pickle", "threading",
                           "multiprocessing", "gc", "F", "tl"})


def safe_member(q: str) -> bool:
    """``q`` is a real member of a safe torch namespace: no deeper than it allows, naming no module."""
    for p, depth in TORCH_SAFE_PREFIXES.items():
        if q == p or q.startswith(p + "."):
            rest = q[len(p) + 1:].split(".") if q != p else []
            return len(rest) <= depth and not any(r in REENTRY_NAMES or r in ("math", "cmath") for r in rest)
    return False


def torch_category(q: str) -> str:
    """alloc | view | query | dtype | safe | module | compute for a qualified ``torch.*`` name."""
    parts = q.split(".")
    last = parts[-1]
    if len(parts) == 2:
        if last in TORCH_DTYPES:
            return "dtype"
        if last in TORCH_ALLOC:
            return "alloc"
        if last in TORCH_VIEWS:
            return "view"
        if last in TORCH_QUERIES:
            return "query"
    if q in TORCH_MOVEMENT:
        return "view"
    if q in AMP_MARKERS:
        return "safe"
    if safe_member(q):
        return "safe"
    if q.startswith(("torch.__version__.", "torch.version.")) and len(parts) <= 4 and last in VERSION_STR_METHODS:
        return "query"  # torch.__version__.split(".") : a version string's methods give strings and numbers
    if q.startswith("torch.nn.") and not q.startswith("torch.nn.functional") and last[:1].isupper():
        return "module"
    if q.startswith("torch.Tensor."):
        return "view" if last in TENSOR_VIEW_METHODS else ("query" if last in TENSOR_SCALAR_METHODS
                                                             else "compute")
    if q in ("torch", "torch.nn", "torch.Tensor", "torch.nn.functional", "torch.linalg", "torch.special",
             "torch.fft", "torch.ops", "torch.ops.aten"):
        return "safe"
    return "compute"

# modules a self-test block (``if __name__ == "__main__":``, never run by the judge) imports at module level:
# allowed when only that block uses the name (`static_policy.PolicyVisitor._self_test_import`)
SELF_TEST_MODULES = frozenset({"time", "timeit", "argparse", "sys", "os", "logging", "statistics", "gc", "json"})
