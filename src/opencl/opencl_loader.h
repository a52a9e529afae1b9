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

extern PsnrHvsClApi psnrhvs_cl;

/* Loads the ICD loader once (thread-safe). 0, or -1 with the reason in why. */
int psnrhvs_opencl_load(char *why, size_t size);

#ifndef PSNRHVS_OPENCL_LOADER_IMPL
#define clBuildProgram            psnrhvs_cl.clBuildProgram
#define clCreateBuffer            psnrhvs_cl.clCreateBuffer
#define clCreateCommandQueue      psnrhvs_cl.clCreateCommandQueue
#define clCreateContext           psnrhvs_cl.clCreateContext
#define clCreateKernel            psnrhvs_cl.clCreateKernel
#define clCreateProgramWithSource psnrhvs_cl.clCreateProgramWithSource
#define clEnqueueFillBuffer       psnrhvs_cl.clEnqueueFillBuffer
#define clEnqueueMapBuffer        psnrhvs_cl.clEnqueueMapBuffer
#define clEnqueueNDRangeKernel    psnrhvs_cl.clEnqueueNDRangeKernel
#define clEnqueueReadBuffer       psnrhvs_cl.clEnqueueReadBuffer
#define clEnqueueUnmapMemObject   psnrhvs_cl.clEnqueueUnmapMemObject
#define clEnqueueWriteBuffer      psnrhvs_cl.clEnqueueWriteBuffer
#define clFinish                  psnrhvs_cl.clFinish
#define clFlush                   psnrhvs_cl.clFlush
#define clGetDeviceIDs            psnrhvs_cl.clGetDeviceIDs
#define clGetDeviceInfo           psnrhvs_cl.clGetDeviceInfo
#define clGetEventInfo            psnrhvs_cl.clGetEventInfo
#define clGetEventProfilingInfo   psnrhvs_cl.clGetEventProfilingInfo
#define clGetKernelWorkGroupInfo  psnrhvs_cl.clGetKernelWorkGroupInfo
#define clGetPlatformIDs          psnrhvs_cl.clGetPlatformIDs
#define clGetPlatformInfo         psnrhvs_cl.clGetPlatformInfo
#define clGetProgramBuildInfo     psnrhvs_cl.clGetProgramBuildInfo
#define clReleaseCommandQueue     psnrhvs_cl.clReleaseCommandQueue
#define clReleaseContext          psnrhvs_cl.clReleaseContext
#define clReleaseEvent            psnrhvs_cl.clReleaseEvent
#define clReleaseKernel           psnrhvs_cl.clReleaseKernel
#define clReleaseMemObject        psnrhvs_cl.clReleaseMemObject
#define clReleaseProgram          psnrhvs_cl.clReleaseProgram
#define clRetainEvent             psnrhvs_cl.clRetainEvent
#define clSetKernelArg            psnrhvs_cl.clSetKernelArg
#define clWaitForEvents           psnrhvs_cl.clWaitForEvents
#endif

#endif /* PSNRHVS_SRC_OPENCL_OPENCL_LOADER_H */
