# The GPU replay plugin. Found: CUDAToolkit (cudart, cuBLAS, cuBLASLt, CUPTI),
# cuDNN 9 (header and library next to the toolkit, or CUDNN_ROOT) and a CUDA
# compiler for replay/gpu/*.cu. The plugin never links the driver (libcuda):
# a binary that does fails to start on a machine without one.
set(OC_REPLAY_BUILT OFF)
if(NOT ONNXCOST_REPLAY STREQUAL "OFF")
  set(oc_missing "")
  find_package(CUDAToolkit QUIET)
  if(NOT CUDAToolkit_FOUND)
    list(APPEND oc_missing "the CUDA toolkit")
  else()
    foreach(t cudart cublas cublasLt cupti)
      if(NOT TARGET CUDA::${t})
        list(APPEND oc_missing "CUDA::${t}")
      endif()
    endforeach()
    find_path(OC_CUDNN_INCLUDE cudnn.h HINTS ${CUDNN_ROOT} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
    find_library(OC_CUDNN_LIB cudnn HINTS ${CUDNN_ROOT} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)
    if(NOT OC_CUDNN_INCLUDE OR NOT OC_CUDNN_LIB)
      list(APPEND oc_missing "cuDNN")
    endif()
    find_path(OC_CUPTI_HOST_H cupti_range_profiler.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_ROOT}/extras/CUPTI/include)
    if(NOT OC_CUPTI_HOST_H)
      list(APPEND oc_missing "CUPTI's range profiler (CUDA >= 12.6)")
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(NOT CMAKE_CUDA_COMPILER)
      list(APPEND oc_missing "a CUDA compiler")
    endif()
  endif()
  if(oc_missing)
    if(ONNXCOST_REPLAY STREQUAL "ON")
      message(FATAL_ERROR "ONNXCOST_REPLAY=ON but not found: ${oc_missing}")
    endif()
    message(STATUS "GPU replay plugin: not built (not found: ${oc_missing})")
  else()
    set(OC_REPLAY_BUILT ON)
  endif()
endif()

if(OC_REPLAY_BUILT)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Turing to Hopper (T4, A100, H100/H200) plus PTX for newer chips; CUDA 13 dropped
    # Volta: for a V100 build with CUDA 12 and -DCMAKE_CUDA_ARCHITECTURES=70
    set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 90-real 90-virtual)
  endif()
  enable_language(CUDA)
  find_package(Threads REQUIRED)
  set(CMAKE_CUDA_STANDARD 17)
  file(GLOB OC_GPU_C CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/replay/gpu/*.c)
  file(GLOB OC_GPU_CU CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/replay/gpu/*.cu)
  # the metric tables (CUPTI's host API, no GPU needed) are also a static
  # library for their unit test
  add_library(oc_gpu_metrics STATIC replay/gpu/metrics.c)
  set_target_properties(oc_gpu_metrics PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  target_include_directories(oc_gpu_metrics PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/replay ${CMAKE_CURRENT_SOURCE_DIR}/replay/gpu
                             PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/replay/gpu/compat)
  target_link_libraries(oc_gpu_metrics PUBLIC CUDA::cupti CUDA::cudart)
  target_compile_options(oc_gpu_metrics PRIVATE ${OC_WARNINGS})
  list(REMOVE_ITEM OC_GPU_C ${CMAKE_CURRENT_SOURCE_DIR}/replay/gpu/metrics.c)
  add_library(onnxcost_gpu MODULE ${OC_GPU_C} ${OC_GPU_CU})
  target_include_directories(onnxcost_gpu PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/replay ${CMAKE_CURRENT_SOURCE_DIR}/replay/gpu
                             ${OC_CUDNN_INCLUDE})
  # cupti_profiler_host.h includes <string>: an empty one on the C include path
  target_include_directories(onnxcost_gpu PRIVATE $<$<COMPILE_LANGUAGE:C>:${CMAKE_CURRENT_SOURCE_DIR}/replay/gpu/compat>)
  target_link_libraries(onnxcost_gpu PRIVATE oc_gpu_metrics ${OC_CUDNN_LIB} CUDA::cublasLt CUDA::cublas CUDA::cupti
                        CUDA::cudart ${CMAKE_DL_LIBS} Threads::Threads)
  target_compile_options(onnxcost_gpu PRIVATE $<$<COMPILE_LANGUAGE:C>:${OC_WARNINGS}>
                         $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  # found next to the onnxcost binary in the build tree, and in lib/onnxcost
  # once installed; the vendor libraries through the toolkit's directory
  # only the entry point is exported (replay/gpu/plugin.c marks it)
  set_target_properties(onnxcost_gpu PROPERTIES C_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden)
  set_target_properties(onnxcost_gpu PROPERTIES PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
                        BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}" INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  install(TARGETS onnxcost_gpu LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/onnxcost)
  message(STATUS "GPU replay plugin: built (CUDA ${CUDAToolkit_VERSION}, cuDNN ${OC_CUDNN_LIB})")
endif()
