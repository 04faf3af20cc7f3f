# SPDX-License-Identifier: GPL-2.0-only
# bpf_object(<name> <src.bpf.c>) — libbpf-bootstrap idiom: compile a BPF C file with
# clang -target bpf and generate a skeleton header with bpftool. Produces the INTERFACE
# target <name>_skel whose include directory holds <name>.skel.h.
find_program(BPF_CLANG NAMES clang clang-14 REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)

execute_process(COMMAND uname -m OUTPUT_VARIABLE FP_ARCH OUTPUT_STRIP_TRAILING_WHITESPACE)
if(FP_ARCH STREQUAL "x86_64")
  set(FP_BPF_ARCH x86)
elseif(FP_ARCH STREQUAL "aarch64")
  set(FP_BPF_ARCH arm64)
else()
  set(FP_BPF_ARCH ${FP_ARCH})
endif()

function(bpf_object name src)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_skel)
  set(obj ${out_dir}/${name}.bpf.o)
  set(skel ${out_dir}/${name}.skel.h)
  file(MAKE_DIRECTORY ${out_dir})
  get_filename_component(src_abs ${src} ABSOLUTE)
  get_filename_component(src_dir ${src_abs} DIRECTORY)
  file(GLOB bpf_headers ${src_dir}/*.h)
  add_custom_command(
    OUTPUT ${obj}
    # Debian's clang needs the multiarch include dir for asm/types.h.
    COMMAND ${BPF_CLANG} -target bpf -O2 -g -Wall -Werror
            -D__TARGET_ARCH_${FP_BPF_ARCH}
            -I${src_dir} -I/usr/include/${CMAKE_LIBRARY_ARCHITECTURE}
            -c ${src_abs} -o ${obj}
    DEPENDS ${src_abs} ${bpf_headers}
    COMMENT "BPF ${name}: clang -target bpf")
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}
    DEPENDS ${obj}
    COMMENT "BPF ${name}: bpftool gen skeleton")
  add_custom_target(${name}_skel_gen DEPENDS ${skel})
  add_library(${name}_skel INTERFACE)
  add_dependencies(${name}_skel ${name}_skel_gen)
  target_include_directories(${name}_skel INTERFACE ${out_dir} ${src_dir})
  target_link_libraries(${name}_skel INTERFACE PkgConfig::LIBBPF)
  set_property(TARGET ${name}_skel PROPERTY BPF_OBJECT_FILE ${obj})
endfunction()
