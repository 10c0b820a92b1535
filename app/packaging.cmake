# The Debian package: `cpack -G DEB` in a build directory (scripts/package.sh does it all) writes
# hearsay_VERSION_amd64.deb from the install rules above, under /usr.
# - Run-time dependencies are computed from the binaries by dpkg-shlibdeps.
# - The CUDA backend's module (lib/hearsay/libhearsay-cuda.so) is in the package, but the CUDA
#   runtime and cuBLAS are only suggested: the programs never link them (core/engine/cuda_module.h),
#   so the package installs and runs without them, and with them the CUDA backend is offered.
#   scripts/package.sh checks that no CUDA library became a dependency.
set(CPACK_PACKAGE_NAME hearsay)
set(CPACK_PACKAGE_VENDOR "The Hearsay developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "real-time speech recognition with Whisper models")
set(CPACK_PACKAGE_DESCRIPTION "Hearsay transcribes speech on the local machine with OpenAI's Whisper models on its own
inference engine: on an NVIDIA GPU with CUDA, or on the CPU. Live dictation from a
microphone (also into other applications' windows), audio and video files to text,
SRT, VTT or JSON, a crash-safe dictation journal and a model manager. The desktop
application is hearsay; hearsay-cli offers the same engine on the command line.")
set(CPACK_PACKAGE_CONTACT "The Hearsay developers <hearsay@users.noreply.github.com>")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/hearsay/hearsay")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # hearsay_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded at run time, so dpkg-shlibdeps cannot see them: Qt's platform plugins (the window itself)
# and SVG image plugin (the icon), and OpenBLAS (core/backend/blas.h says why it is loaded late).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6, libopenblas0 | libopenblas0-pthread")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pulseaudio | pipewire-pulse, ffmpeg")
if(TARGET hearsay_cuda)
    # NVIDIA's own packages of the runtime and cuBLAS this build was compiled against.
    set(cuda_series "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
    set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cuda-cudart-${cuda_series}, libcublas-${cuda_series}")
endif()
include(CPack)
