# The Debian packages (CPack), made from a configured build tree with `cmake --build build --target package`:
#   warren_<version>_amd64.deb    the window and CLI (warren), warren-sandbox, the agent in /usr/lib/warren,
#                                 the desktop entry, icons and AppStream metainfo, man pages, the AppArmor
#                                 profile (installed and loaded by postinst where the kernel restricts user
#                                 namespaces), docs/SECURITY.md says what it allows
#   warrend_<version>_amd64.deb   the server: warrend, its systemd unit and /etc/warrend/warrend.conf
# Every install() rule without a COMPONENT belongs to warren (CMAKE_INSTALL_DEFAULT_COMPONENT_NAME, set
# in the top CMakeLists.txt); the server's say COMPONENT warrend. Included from the top CMakeLists.txt.
include(GNUInstallDirs)

set(WARREN_PACKAGE_MAINTAINER "Warren developers <warren@example.org>"
    CACHE STRING "the Maintainer field of the Debian packages")
set(packaging ${CMAKE_CURRENT_SOURCE_DIR}/packaging)
set(generated ${CMAKE_CURRENT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${generated})

# Man pages and the changelogs are compressed as Debian wants them: gzip -9, no name or time stamp inside.
set(gzipped)
function(warren_gzip source output)
    add_custom_command(OUTPUT ${output} COMMAND gzip -9nc ${source} > ${output} DEPENDS ${source}
                       COMMENT "Compressing ${output}" VERBATIM)
    set(gzipped ${gzipped} ${output} PARENT_SCOPE)
endfunction()
foreach(page warren.1 warren-sandbox.1 warrend.8)
    warren_gzip(${packaging}/man/${page} ${generated}/${page}.gz)
endforeach()
warren_gzip(${packaging}/debian/changelog ${generated}/changelog.gz)
add_custom_target(warren_package_files ALL DEPENDS ${gzipped})

# warren
install(FILES ${generated}/warren.1.gz ${generated}/warren-sandbox.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${packaging}/apparmor/warren DESTINATION ${CMAKE_INSTALL_DATADIR}/warren/apparmor)
install(FILES ${packaging}/debian/copyright ${generated}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/warren)
install(FILES ${packaging}/debian/warren/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        RENAME warren)

# warrend
install(FILES ${generated}/warrend.8.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT warrend)
install(FILES ${packaging}/systemd/warrend.service DESTINATION /lib/systemd/system COMPONENT warrend)
install(FILES ${packaging}/systemd/warrend.conf DESTINATION /etc/warrend COMPONENT warrend
        PERMISSIONS OWNER_READ OWNER_WRITE) # it may hold model API keys; systemd reads it as root
install(FILES ${packaging}/debian/copyright ${generated}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/warrend
        COMPONENT warrend)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL warren warrend)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${WARREN_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SOURCE warren)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_WARREN_PACKAGE_NAME warren)
# bwrap and git are run, not linked, so shlibdeps cannot see them: bwrap 0.8 is the oldest Warren accepts
# (sandbox/Preflight.h); git keeps each task's workspace snapshots (app/snapshots: warren diff and rewind).
set(CPACK_DEBIAN_WARREN_PACKAGE_DEPENDS "bubblewrap (>= 0.8), git")
set(CPACK_DEBIAN_WARREN_PACKAGE_RECOMMENDS "podman, gnome-keyring | keepassxc | org.freedesktop.secrets")
set(CPACK_DEBIAN_WARREN_PACKAGE_SUGGESTS "apparmor")
set(CPACK_DEBIAN_WARREN_PACKAGE_CONTROL_EXTRA ${packaging}/debian/warren/postinst ${packaging}/debian/warren/postrm)
set(CPACK_COMPONENT_WARREN_DESCRIPTION
   "Run AI agents on your code inside a sandbox and watch what they do
Warren is a desktop app and command line that runs AI coding agents on your own
machine. Each task's agent runs inside a bubblewrap sandbox with a seccomp
filter (or a Podman container) and sees only the workspace you give it; the
model API keys stay outside, in the system keychain. Every step, command,
output and file change is recorded and shown live.

This package holds the window and CLI (warren), the standalone sandbox
(warren-sandbox), the agent, and an AppArmor profile that lets Warren's own
sandbox create user namespaces where AppArmor restricts them (Ubuntu 23.10
and later).")

set(CPACK_DEBIAN_WARREND_PACKAGE_NAME warrend)
set(CPACK_DEBIAN_WARREND_PACKAGE_SECTION net)
# The server runs the agents the warren package ships, in its sandbox, under its AppArmor profile.
set(CPACK_DEBIAN_WARREND_PACKAGE_DEPENDS "warren (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_WARREND_PACKAGE_RECOMMENDS "postgresql")
set(CPACK_DEBIAN_WARREND_PACKAGE_CONTROL_EXTRA
    ${packaging}/debian/warrend/conffiles ${packaging}/debian/warrend/postinst ${packaging}/debian/warrend/postrm)
set(CPACK_COMPONENT_WARREND_DESCRIPTION
   "Warren's control plane as a server for many users
warrend runs Warren's control plane headless for many users: each user's
agent runs in its own sandbox on the server, on a workspace uploaded as a
tar, and the model keys stay on the server. Tasks and events are kept in
PostgreSQL. Includes a hardened systemd unit and /etc/warrend/warrend.conf.")

include(CPack)
