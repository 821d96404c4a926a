#!/usr/bin/env python3
"""Run a leaf Go assembly function (ABI0) on an emulated x86-64 CPU with AVX-512 (BochsCPU,
through the bochscpu-python package), for sgemm's TestAVX512KernelsEmulated on machines whose CPU
lacks AVX-512.

Input (JSON on stdin):
  {"code": HEX, "code_addr": N,                       the function's machine code and where it goes
   "arena_addr": N, "arena_size": N,                  one read-write block for the data
   "cases": [{"args": [u64...],                       the ABI0 argument words (8(SP), 16(SP), ...)
              "writes": [[addr, HEX], ...],           bytes to put in the arena before the call
              "reads": [[addr, len], ...]}]}          bytes to return after it
Output (JSON on stdout): {"results": [{"reads": [HEX...], "instructions": N}], "cpu": "..."} or
{"error": "..."} with exit status 1. The function must return by RET to the address the runner
pushes; any CPU exception before that (for instance #UD for an instruction the emulated CPU lacks)
is an error naming its vector and the offset of the faulting instruction.
"""
import json
import sys

import bochscpu
import bochscpu.cpu
import bochscpu.memory

PAGE = bochscpu.memory.page_size()
CODE, RW = 0, 1
STACK_GVA, STACK_PAGES = 0x7000_0000, 4
PML4 = 0x10_0000
GPA_BASE = 0x100_0000


def fail(msg):
    json.dump({"error": msg}, sys.stdout)
    sys.stdout.write("\n")
    sys.exit(1)


def main():
    job = json.load(sys.stdin)
    code = bytes.fromhex(job["code"])
    code_gva = job["code_addr"]
    arena_gva, arena_size = job["arena_addr"], job["arena_size"]
    if code_gva % PAGE or arena_gva % PAGE:
        fail("code_addr and arena_addr must be page-aligned")
    sentinel = code_gva + len(code)  # the return address: a HLT right after the function
    code_bytes = code + b"\xf4"

    sess = bochscpu.Session()

    def missing_page(gpa):
        raise RuntimeError(f"missing page at physical {gpa:#x}")

    sess.missing_page_handler = missing_page

    pt = bochscpu.memory.PageMapLevel4Table()
    hvas = []
    next_gpa = [GPA_BASE]

    def map_range(gva, size, kind):
        for off in range(0, (size + PAGE - 1) // PAGE * PAGE, PAGE):
            hva = bochscpu.memory.allocate_host_page()
            hvas.append(hva)
            gpa = next_gpa[0]
            next_gpa[0] += PAGE
            bochscpu.memory.page_insert(gpa, hva)
            pt.insert(gva + off, gpa, kind)

    map_range(code_gva, len(code_bytes), CODE)
    map_range(arena_gva, arena_size, RW)
    map_range(STACK_GVA, STACK_PAGES * PAGE, RW)
    for hva, gpa in pt.commit(PML4):
        bochscpu.memory.page_insert(gpa, hva)
    if not bochscpu.memory.virt_write(PML4, code_gva, list(code_bytes)):
        fail("could not write the code")

    results = []
    for n, case in enumerate(job["cases"]):
        for addr, data in case["writes"]:
            if not (arena_gva <= addr and addr + len(data) // 2 <= arena_gva + arena_size):
                fail(f"case {n}: write at {addr:#x} outside the arena")
            if not bochscpu.memory.virt_write(PML4, addr, list(bytes.fromhex(data))):
                fail(f"case {n}: could not write at {addr:#x}")
        # ABI0: 0(SP) holds the return address, the argument words follow it.
        rsp = STACK_GVA + STACK_PAGES * PAGE // 2
        frame = sentinel.to_bytes(8, "little") + b"".join(
            (a & (2**64 - 1)).to_bytes(8, "little") for a in case["args"]
        )
        bochscpu.memory.virt_write(PML4, rsp, list(frame))

        state = bochscpu.State()
        bochscpu.cpu.set_long_mode(state)
        state.cr3 = PML4
        # Let SSE, AVX and AVX-512 state be used: CR4.OSFXSR, OSXMMEXCPT and OSXSAVE, and XCR0 with
        # x87, SSE, AVX, opmask, ZMM_Hi256 and Hi16_ZMM enabled.
        state.cr4 = state.cr4 | (1 << 9) | (1 << 10) | (1 << 18)
        state.cr0 = (state.cr0 | (1 << 1)) & ~((1 << 2) | (1 << 3))  # MP on, EM and TS off
        state.xcr0 = 0xE7
        state.mxcsr = 0x1F80
        state.rsp = rsp
        state.rip = code_gva
        cs = bochscpu.Segment()
        cs.present, cs.selector, cs.base, cs.limit, cs.attr = True, 0x33, 0, 0xFFFF_FFFF, 0x22FB
        ds = bochscpu.Segment()
        ds.present, ds.selector, ds.base, ds.limit, ds.attr = True, 0x2B, 0, 0xFFFF_FFFF, 0xCF3
        state.cs = cs
        state.ds = state.ss = state.es = state.fs = state.gs = ds
        sess.cpu.state = state

        stats = {"insns": 0, "exception": None}

        def on_exception(s, cpu_id, vector, error_code):
            stats["exception"] = (int(vector), int(error_code), s.cpu.rip)
            s.stop()

        def after(s, cpu_id, insn):
            stats["insns"] += 1
            if s.cpu.rip == sentinel:
                s.stop()

        hook = bochscpu.Hook()
        hook.exception = on_exception
        hook.after_execution = after
        sess.run([hook])

        end = sess.cpu.state
        if end.rip != sentinel:
            exc = stats["exception"]
            where = end.rip - code_gva
            if exc:
                fail(f"case {n}: CPU exception vector {exc[0]} (error code {exc[1]}) at offset {where:#x} after {stats['insns']} instructions")
            fail(f"case {n}: stopped at offset {where:#x} after {stats['insns']} instructions")
        if end.rsp != rsp + 8:
            fail(f"case {n}: returned with SP {end.rsp - rsp:+d} bytes from the call's")
        reads = []
        for addr, length in case["reads"]:
            data = bochscpu.memory.virt_read(PML4, addr, length)
            if data is None:
                fail(f"case {n}: could not read at {addr:#x}")
            reads.append(bytes(data).hex())
        results.append({"reads": reads, "instructions": stats["insns"]})

    for hva in hvas:
        bochscpu.memory.release_host_page(hva)
    json.dump({"results": results, "emulator": "bochscpu-python"}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
