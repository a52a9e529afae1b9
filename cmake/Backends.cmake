# Optional device backends. AUTO builds a backend where its compiler or SDK is found.
set(PSNRHVS_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set(PSNRHVS_OPENCL AUTO CACHE STRING "Build the OpenCL backend: AUTO, ON or OFF")
set(PSNRHVS_HIP AUTO CACHE STRING "Build the HIP backend: AUTO, ON or OFF")
