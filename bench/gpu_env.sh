# Sourced by the GPU machine's scripts (bench/default_gpu.sh, bench/mix_gpu.sh):
# NVIDIA's OpenCL ICD, which the machine does not register, named in a folder
# of our own (OCL_ICD_VENDORS); and, where bench/vulkan_carry.sh's
# .device/vulkan was carried, the cmake flags of a Vulkan build (vk_args) and
# its loader on LD_LIBRARY_PATH when the machine has none. Needs ROOT.
# SPDX-License-Identifier: BSD-2-Clause
if ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/icd
fi
VK=$ROOT/.device/vulkan
vk_args=(-DPSNRHVS_VULKAN=OFF)
if [ -f "$VK/spirv/SOURCES.sha256" ]; then
    vk_args=(-DPSNRHVS_VULKAN=ON -DPSNRHVS_VULKAN_INCLUDE_HINT="$VK/include" -DPSNRHVS_VULKAN_SPIRV_DIR="$VK/spirv")
    ldconfig -p | grep -q 'libvulkan\.so\.1 ' || export LD_LIBRARY_PATH=$VK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
