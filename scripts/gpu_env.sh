#!/usr/bin/env bash
# Source this on a lent GPU machine (no package index there): installs carried wheels (.whl/) into
# /tmp/site and LEAP itself (editable, no deps) so `leap` and `pytest` work. Usage: `source scripts/gpu_env.sh`.
# Fill .whl/ first, here (ignored by git through .git/info/exclude):
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_17_x86_64 -d .whl pydantic==2.13.4 pydantic_core==2.46.4 annotated_types \
#     typing_inspection typing_extensions gguf
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/tmp/leap_install.log 2>&1 \
  || { echo "editable install failed; using PYTHONPATH=src"; export PYTHONPATH=$PWD/src:$PYTHONPATH; }
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'gpu', torch.cuda.get_device_name(0))"
