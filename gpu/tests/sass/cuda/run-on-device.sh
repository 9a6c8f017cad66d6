#!/bin/sh
# Runs every entry of gpu/tests/sass/runs.txt on this machine's NVIDIA GPU, twice: builds runner.cu with nvcc,
# writes the first run's ENTRY.out files and device.txt (the GPU, its driver and CUDA versions) to OUTDIR, the
# second run's to OUTDIR/again, and names the files in which the two runs differ (what runs.txt's varies= covers).
# The results committed in results/ come from OUTDIR.
#
#   gpu/tests/sass/cuda/run-on-device.sh OUTDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out/again"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -O2 -o "$out/runner" "$here/runner.cu" -lcuda

{
    echo "name: $(nvidia-smi --query-gpu=name --format=csv,noheader -i 0)"
    echo "compute capability: $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0)"
    echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0)"
    echo "CUDA (driver): $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p')"
    echo "nvcc: $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
} > "$out/device.txt"
cat "$out/device.txt"

status=0
"$out/runner" "$here/.." "$out" || status=1
"$out/runner" "$here/.." "$out/again" > /dev/null || status=1
rm "$out/runner"
for file in "$out"/*.out; do
    cmp -s "$file" "$out/again/$(basename "$file")" || echo "differs between the runs: $(basename "$file")"
done
exit $status
