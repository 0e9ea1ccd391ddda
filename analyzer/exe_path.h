/*
 * exe_path.h — files installed beside the onnxcost executable: the GPU
 * replay plugin (lib/onnxcost), the ONNX Runtime driver of `measure`
 * (share/onnxcost). A build tree keeps them next to the executable itself;
 * an install keeps them under its prefix, found from the executable's own
 * place, so that an installed tree can be moved.
 */
#ifndef OC_EXE_PATH_H
#define OC_EXE_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* The running executable's folder (no trailing slash); false if unknown. */
bool oc_exe_dir(char *dir, size_t n);
/* The readable file NAME beside the executable, else in ../RELDIR from it
 * (reldir relative to the install prefix, "lib/onnxcost"): its path in buf,
 * or false. */
bool oc_exe_find(const char *name, const char *reldir, char *buf, size_t n);

#endif
