# The public API, read from the header: the names of the functions declared
# with PSNRHVS_API. The shared library's version script is made from this list
# (src/CMakeLists.txt) and tests/install compares the installed library's
# dynamic symbols with it. Used at configure time and from cmake -P scripts.
function(psnrhvs_public_functions out header)
  file(READ ${header} text)
  # The parts psnrhvs.h includes (include/psnrhvs/*.h), read beside it.
  get_filename_component(dir ${header} DIRECTORY)
  string(REGEX MATCHALL "#include \"psnrhvs/[a-z_]+\\.h\"" parts "${text}")
  foreach(part ${parts})
    string(REGEX REPLACE "#include \"(psnrhvs/[a-z_]+\\.h)\"" "\\1" part "${part}")
    file(READ ${dir}/${part} part_text)
    string(APPEND text "\n${part_text}")
  endforeach()
  # Comments and preprocessor lines hold the word too (#define PSNRHVS_API ...).
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX REPLACE "\n[ \t]*#[^\n]*" "\n" text "\n${text}")
  string(REGEX MATCHALL "PSNRHVS_API[^A-Za-z0-9_]" uses "${text}")
  string(REGEX MATCHALL "PSNRHVS_API[ \t\n][^;(){}]*\\(" decls "${text}")
  set(names "")
  foreach(decl ${decls})
    string(REGEX MATCH "([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*\\($" _ "${decl}")
    list(APPEND names ${CMAKE_MATCH_1})
  endforeach()
  # Every use must be a function declaration this parser understood.
  list(LENGTH uses n_uses)
  list(LENGTH names n_names)
  if(n_names EQUAL 0 OR NOT n_names EQUAL n_uses)
    message(FATAL_ERROR "${header}: ${n_uses} uses of PSNRHVS_API but ${n_names} "
                        "function declarations understood (${names})")
  endif()
  list(SORT names)
  set(${out} ${names} PARENT_SCOPE)
endfunction()
