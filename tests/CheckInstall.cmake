# SPDX-License-Identifier: Apache-2.0
# Installs the build into a scratch prefix and checks the layout a Debian package ships:
# cmake -DBUILD_DIR=<build> -DPREFIX=<scratch> -P CheckInstall.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE result OUTPUT_QUIET)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${result}")
endif()
foreach(path bin/cleave bin/cleave-cli share/applications/io.github.cleave.Cleave.desktop
             share/icons/hicolor/scalable/apps/cleave.svg
             share/metainfo/io.github.cleave.Cleave.metainfo.xml
             share/cleave/samples/resnet18.relay)
  if(NOT EXISTS "${PREFIX}/${path}")
    message(FATAL_ERROR "the install tree lacks ${path}")
  endif()
endforeach()
file(READ "${PREFIX}/share/applications/io.github.cleave.Cleave.desktop" desktop)
if(NOT desktop MATCHES "Exec=cleave %f")
  message(FATAL_ERROR "the desktop entry does not start cleave")
endif()
file(READ "${PREFIX}/share/metainfo/io.github.cleave.Cleave.metainfo.xml" metainfo)
if(NOT metainfo MATCHES "<launchable type=\"desktop-id\">io.github.cleave.Cleave.desktop</launchable>")
  message(FATAL_ERROR "the AppStream metadata does not name the installed desktop entry")
endif()
file(REMOVE_RECURSE "${PREFIX}")
message(STATUS "install layout OK")
