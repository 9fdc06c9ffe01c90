# Writes OUT: a C++ file holding standin.sh as a string, so the binary carries its
# stand-in executables without reading the source tree at run time.
file(READ "${SCRIPT}" text)
set(body "// Generated from src/capture/standin.sh by embed_standin.cmake. Do not edit.\n")
string(APPEND body "#include \"capture/sandbox.h\"\nnamespace servebench::capture {\n")
string(APPEND body "std::string_view StandinScript() {\n  return R\"sb_standin(${text})sb_standin\";\n}\n")
string(APPEND body "}  // namespace servebench::capture\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
