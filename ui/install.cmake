# The desktop integration of `warren`: its launcher entry, its icon at the sizes the hicolor theme looks
# up, and its AppStream description for software centres. Included from ui/CMakeLists.txt.
include(GNUInstallDirs)

install(FILES ${WARREN_RESOURCES_DIR}/warren.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${WARREN_RESOURCES_DIR}/icons/warren.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(size 48x48 128x128 256x256)
    install(FILES ${WARREN_RESOURCES_DIR}/icons/hicolor/${size}/apps/warren.png
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}/apps)
endforeach()
install(FILES ${WARREN_RESOURCES_DIR}/io.github.warren.Warren.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
