# SPDX-License-Identifier: Apache-2.0
# Install layout and the Debian package (cpack -G DEB from the build folder).
include(GNUInstallDirs)

install(FILES ${PROJECT_SOURCE_DIR}/resources/cleave.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications RENAME io.github.cleave.Cleave.desktop)
install(FILES ${PROJECT_SOURCE_DIR}/resources/cleave.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/io.github.cleave.Cleave.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/cleave/samples
        FILES_MATCHING PATTERN "*.relay" PATTERN "*.json" PATTERN "*.onnx" PATTERN "*.md")

set(CPACK_PACKAGE_NAME cleave)
set(CPACK_PACKAGE_VENDOR "Cleave developers")
set(CPACK_PACKAGE_CONTACT "Cleave developers <cleave@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Cleave opens TVM Relay text, TVM graph.json and ONNX models, lays out their graph with \
Graphviz, lets you cut it into pipeline stages or BYOC regions with live validation, and \
exports each partition with the TVM pipeline executor configuration. cleave-cli runs the same \
engine headless.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
set(CPACK_STRIP_FILES ON)
include(CPack)
