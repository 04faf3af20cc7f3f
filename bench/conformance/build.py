# SPDX-License-Identifier: GPL-2.0-only
"""Building one example of the corpus: the switched source in the example's build directory,
compiled with the injected FlowMonitor unit against the fastpath module through pkg-config,
as a user builds a script of their own (docs/guides/ns3-router.md, "Building against the
installed module")."""
import glob
import os
import shutil
import subprocess

from corpus import EXAMPLES_DIR
from switch import apply_switch, format_changes

HERE = os.path.dirname(os.path.abspath(__file__))
INJECT = os.path.join(HERE, "flowmon-inject.cc")
# Simulator::Run() and FlowMonitorHelper::InstallAll(), mangled: the example's calls are linked
# to the injected unit's wrappers.
WRAP = "-Wl,--wrap=_ZN3ns39Simulator3RunEv,--wrap=_ZN3ns317FlowMonitorHelper10InstallAllEv"


def _cmake_cache(build_dir, key):
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    return None


def pkg_config_path(build_dir=None, prefix=None, out=None):
    """PKG_CONFIG_PATH that finds ns3-fastpath: the installed prefix's, or for a build tree a
    file written into out/pkgconfig pointing at the built library and its headers."""
    if prefix:
        dirs = glob.glob(os.path.join(prefix, "lib*", "pkgconfig")) + \
            glob.glob(os.path.join(prefix, "lib", "*", "pkgconfig"))
        return ":".join(dirs)
    build_dir = os.path.abspath(build_dir)
    source = _cmake_cache(build_dir, "CMAKE_HOME_DIRECTORY")
    lib = os.path.join(build_dir, "ns3-module")
    if not os.path.exists(os.path.join(lib, "libns3-fastpath.so")):
        raise RuntimeError(f"{lib}/libns3-fastpath.so is missing: build the target fp_ns3")
    installed = open(os.path.join(lib, "ns3-fastpath.pc")).read()
    requires = next(l for l in installed.splitlines() if l.startswith("Requires:"))
    pc_dir = os.path.join(out, "pkgconfig")
    os.makedirs(pc_dir, exist_ok=True)
    with open(os.path.join(pc_dir, "ns3-fastpath.pc"), "w") as f:
        f.write("# The fastpath module in the build tree " + build_dir + "\n"
                "Name: ns3-fastpath\nDescription: ns3-fastpath, build tree\nVersion: 0\n"
                f"{requires}\nLibs: -L{lib} -lns3-fastpath -Wl,-rpath,{lib}\n"
                f"Cflags: -I{lib}/include -I{source}/common/include -std=c++17\n")
    return pc_dir


def _ns3_modules(env):
    out = subprocess.run(["pkg-config", "--list-all"], capture_output=True, text=True,
                         env=env).stdout
    return sorted(l.split()[0] for l in out.splitlines() if l.startswith("ns3-")
                  and not l.startswith("ns3-fastpath"))


def _tracing_switch(obj, workdir):
    """An assembly unit wrapping each tracing call the example makes (EnablePcap*,
    EnableAscii*: they all return void): with $FP_CONFORMANCE_NO_TRACING set the call returns
    at once, else it jumps to the real function with the registers untouched. The harness's
    diagnosis of what an example does beyond its tracing; returns (source, --wrap flags)."""
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True).stdout
    syms = sorted({l.split()[-1] for l in out.splitlines()
                   if "EnablePcap" in l or "EnableAscii" in l})
    asm = ['\t.section .text', '\t.globl fp_conformance_no_tracing_flag',
           '\t.section .bss', 'fp_conformance_no_tracing_flag: .byte 0', '\t.section .text']
    for sym in syms:
        asm += [f"\t.globl __wrap_{sym}", f"\t.type __wrap_{sym}, @function",
                f"__wrap_{sym}:", "\tcmpb $0, fp_conformance_no_tracing_flag(%rip)",
                "\tjne 1f", f"\tjmp __real_{sym}@PLT", "1:\tret"]
    asm += ['\t.section .init_array,"aw"', "\t.quad fp_conformance_tracing_init",
            '\t.section .note.GNU-stack,"",@progbits']
    src = os.path.join(workdir, "tracing-switch.s")
    with open(src, "w") as f:
        f.write("\n".join(asm) + "\n")
    init = os.path.join(workdir, "tracing-switch-init.cc")
    with open(init, "w") as f:
        f.write('#include <cstdlib>\nextern "C" char fp_conformance_no_tracing_flag;\n'
                'extern "C" void fp_conformance_tracing_init()\n'
                '{ fp_conformance_no_tracing_flag = std::getenv("FP_CONFORMANCE_NO_TRACING") != 0; }\n')
    return [src, init], ["-Wl,--wrap=" + s for s in syms]


def build_example(example, workdir, pc_path, log):
    """Writes workdir/<base>.cc (switched), changes.txt and build.log; returns the program's
    path. Raises RuntimeError with the compiler's last lines when it does not build."""
    os.makedirs(workdir, exist_ok=True)
    src = os.path.join(EXAMPLES_DIR, example.path)
    switched, changes = apply_switch(open(src).read())
    base = os.path.basename(example.path)
    target = os.path.join(workdir, base)
    with open(target, "w") as f:
        f.write(switched)
    text = format_changes(example.path, changes)
    with open(os.path.join(workdir, "changes.txt"), "w") as f:
        f.write(text + "\n")
    log(f"{example.name}: switch\n" + text)
    env = dict(os.environ, PKG_CONFIG_PATH=pc_path)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "ns3-fastpath"]
                           + _ns3_modules(env), capture_output=True, text=True, env=env,
                           check=True).stdout.split()
    exe = os.path.join(workdir, base[:-3])
    compiler = ["ccache", "g++"] if shutil.which("ccache") else ["g++"]
    obj = exe + ".o"
    cflags = [f for f in flags if f.startswith(("-I", "-D", "-std", "-f", "-pthread"))]
    steps = [compiler + ["-std=c++17", "-O1", "-w", "-I", os.path.dirname(src), "-c", target,
                         "-o", obj] + cflags]
    with open(os.path.join(workdir, "build.log"), "w") as f:
        for i in range(2):
            if i == 1:
                tracing_srcs, tracing_wraps = _tracing_switch(obj, workdir)
                steps.append(compiler + ["-std=c++17", "-O1", "-w", "-I", os.path.dirname(src),
                                         obj] + [os.path.join(EXAMPLES_DIR, x)
                                                 for x in example.extra]
                             + [INJECT] + tracing_srcs + [WRAP] + tracing_wraps
                             + ["-o", exe] + flags)
            r = subprocess.run(steps[i], capture_output=True, text=True)
            f.write(" ".join(steps[i]) + "\n" + r.stdout + r.stderr)
            if r.returncode != 0:
                raise RuntimeError("does not build: " +
                                   (r.stderr.strip().splitlines() or ["?"])[-1])
    return exe
