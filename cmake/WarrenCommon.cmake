# warren_common: the flags every Warren target shares. Link it PRIVATE; it carries no sources.
add_library(warren_common INTERFACE)
target_compile_features(warren_common INTERFACE cxx_std_20)
# Every project header is included by its path from the repository's root ("sandbox/SandboxLaunch.h"), so
# an include names the module it reaches into. Generated sources (embedded resources, the precompiled
# seccomp filters) are .cpp files in the build tree that include such paths; no header is generated.
target_include_directories(warren_common INTERFACE ${PROJECT_SOURCE_DIR})
set(CMAKE_CXX_EXTENSIONS OFF)

target_compile_options(warren_common INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Wnull-dereference -Wdouble-promotion -Wformat=2
    -Wimplicit-fallthrough
    # Hardening: stack protector, fortified libc calls, PIE, full RELRO, no executable stack.
    -fstack-protector-strong -fstack-clash-protection -fcf-protection
    $<$<NOT:$<CONFIG:Debug>>:-D_FORTIFY_SOURCE=2>
    -D_GLIBCXX_ASSERTIONS
    # -fPIC rather than -fPIE, also for executables (still linked -pie): Qt is built with reduced
    # relocations, and code compiled -fPIE gets copy relocations of Qt's data (meta-objects), which
    # crashed QApplication on start.
    -fPIC)
target_link_options(warren_common INTERFACE -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack)
# Debug sections compressed (zlib) in objects and binaries: a build tree with debug information takes a
# third of the space (CI keeps a release and a sanitizer tree side by side). Debuggers read them as they are.
target_compile_options(warren_common INTERFACE -gz)
target_link_options(warren_common INTERFACE -gz)

# lld, where installed: ccache saves compiling but never linking, and the suite links some 300 executables.
# Here lld links one (tst_gui_window, RelWithDebInfo) in 2.3 s where GNU ld takes 10.7 s. -DWITH_LLD=OFF for
# GNU ld.
find_program(LLD_PROGRAM ld.lld)
option(WITH_LLD "Link with lld when it is installed" ON)
if(WITH_LLD AND LLD_PROGRAM)
    include(CheckLinkerFlag)
    check_linker_flag(CXX -fuse-ld=lld WARREN_LINKER_LLD)
    if(WARREN_LINKER_LLD)
        target_link_options(warren_common INTERFACE -fuse-ld=lld)
    endif()
endif()

if(WARNINGS_AS_ERRORS)
    target_compile_options(warren_common INTERFACE -Werror)
endif()

if(WITH_ASAN)
    target_compile_options(warren_common INTERFACE
        -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    target_link_options(warren_common INTERFACE -fsanitize=address,undefined)
endif()

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

# ccache, where installed, so that a second configuration of the same sources (CI's build without the
# window) reuses the first one's objects. -DWITH_CCACHE=OFF to do without.
find_program(CCACHE_PROGRAM ccache)
option(WITH_CCACHE "Compile through ccache when it is installed" ON)
if(WITH_CCACHE AND CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_C_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()
