/*
 * The OpenCL entry points the backend uses, loaded at run time from the ICD
 * loader (libOpenCL.so.1) instead of linked: a program built with the
 * OpenCL backend starts on machines without OpenCL, and says so only when
 * that backend is asked for. Include after <CL/cl.h>; the cl* names below
 * then call through the loaded table.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_OPENCL_OPENCL_LOADER_H
#define PSNRHVS_SRC_OPENCL_OPENCL_LOADER_H

#include <stddef.h>

#define PSNRHVS_CL_FUNCTIONS(X)                                                                    \
    X(clBuildProgram)                                                                              \
    X(clCreateBuffer)                                                                              \
    X(clCreateCommandQueue)                                                                        \
    X(clCreateContext)                                                                             \
    X(clCreateKernel)                                                                              \
    X(clCreateProgramWithSource)                                                                   \
    X(clEnqueueFillBuffer)                                                                         \
    X(clEnqueueMapBuffer)                                                                          \
    X(clEnqueueNDRangeKernel)                                                                      \
    X(clEnqueueReadBuffer)                                                                         \
    X(clEnqueueUnmapMemObject)                                                                     \
    X(clEnqueueWriteBuffer)                                                                        \
    X(clFinish)                                                                                    \
    X(clFlush)                                                                                     \
    X(clGetDeviceIDs)                                                                              \
    X(clGetDeviceInfo)                                                                             \
    X(clGetEventInfo)                                                                              \
    X(clGetEventProfilingInfo)                                                                     \
    X(clGetKernelWorkGroupInfo)                                                                    \
    X(clGetPlatformIDs)                                                                            \
    X(clGetPlatformInfo)                                                                           \
    X(clGetProgramBuildInfo)                                                                       \
    X(clReleaseCommandQueue)                                                                       \
    X(clReleaseContext)                                                                            \
    X(clReleaseEvent)                                                                              \
    X(clReleaseKernel)                                                                             \
    X(clReleaseMemObject)                                                                          \
    X(clReleaseProgram)                                                                            \
    X(clRetainEvent)                                                                               \
    X(clSetKernelArg)                                                                              \
    X(clWaitForEvents)

typedef struct PsnrHvsClApi {
#define PSNRHVS_CL_MEMBER(name) __typeof__(name) *name;
    PSNRHVS_CL_FUNCTIONS(PSNRHVS_CL_MEMBER)
#undef PSNRHVS_CL_MEMBER
} PsnrHvsClApi;

extern PsnrHvsClApi psh_cl;

/* Loads the ICD loader once (thread-safe). 0, or -1 with the reason in why. */
int psh_opencl_load(char *why, size_t size);

#ifndef PSNRHVS_OPENCL_LOADER_IMPL
#define clBuildProgram            psh_cl.clBuildProgram
#define clCreateBuffer            psh_cl.clCreateBuffer
#define clCreateCommandQueue      psh_cl.clCreateCommandQueue
#define clCreateContext           psh_cl.clCreateContext
#define clCreateKernel            psh_cl.clCreateKernel
#define clCreateProgramWithSource psh_cl.clCreateProgramWithSource
#define clEnqueueFillBuffer       psh_cl.clEnqueueFillBuffer
#define clEnqueueMapBuffer        psh_cl.clEnqueueMapBuffer
#define clEnqueueNDRangeKernel    psh_cl.clEnqueueNDRangeKernel
#define clEnqueueReadBuffer       psh_cl.clEnqueueReadBuffer
#define clEnqueueUnmapMemObject   psh_cl.clEnqueueUnmapMemObject
#define clEnqueueWriteBuffer      psh_cl.clEnqueueWriteBuffer
#define clFinish                  psh_cl.clFinish
#define clFlush                   psh_cl.clFlush
#define clGetDeviceIDs            psh_cl.clGetDeviceIDs
#define clGetDeviceInfo           psh_cl.clGetDeviceInfo
#define clGetEventInfo            psh_cl.clGetEventInfo
#define clGetEventProfilingInfo   psh_cl.clGetEventProfilingInfo
#define clGetKernelWorkGroupInfo  psh_cl.clGetKernelWorkGroupInfo
#define clGetPlatformIDs          psh_cl.clGetPlatformIDs
#define clGetPlatformInfo         psh_cl.clGetPlatformInfo
#define clGetProgramBuildInfo     psh_cl.clGetProgramBuildInfo
#define clReleaseCommandQueue     psh_cl.clReleaseCommandQueue
#define clReleaseContext          psh_cl.clReleaseContext
#define clReleaseEvent            psh_cl.clReleaseEvent
#define clReleaseKernel           psh_cl.clReleaseKernel
#define clReleaseMemObject        psh_cl.clReleaseMemObject
#define clReleaseProgram          psh_cl.clReleaseProgram
#define clRetainEvent             psh_cl.clRetainEvent
#define clSetKernelArg            psh_cl.clSetKernelArg
#define clWaitForEvents           psh_cl.clWaitForEvents
#endif

#endif /* PSNRHVS_SRC_OPENCL_OPENCL_LOADER_H */
