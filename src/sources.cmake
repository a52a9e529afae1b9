# The library's own translation units (backend folders add theirs). Kept apart
# from src/CMakeLists.txt so that build rules and the source list change apart.
set(PSNRHVS_LIB_SOURCES
  lib.c
  mix.c
  pool.c
  file.c
  format.c
  layout.c
  probe.c
  output/output.c
  output/xml.c
  output/json.c
  output/csv.c
  output/sub.c
  log.c
  module.c
  dl.c
  frame.c
  thread_pool.c
  cpu.c
  dsp.c
  plane_ref.c
  cpu_backend.c
  sum/exact_sum.c
  test_hooks.c
)
