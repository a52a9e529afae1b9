# The library's own translation units (backend folders add theirs). Kept apart
# from src/CMakeLists.txt so that build rules and the source list change apart.
set(PSNRHVS_LIB_SOURCES
  lib.c
  cpu_backend.c
  cpu_sum.c
  cpu.c
  dsp.c
  plane_ref.c
  staging.c
)
