# hearsay_test_ffmpeg: use_ffmpeg.cpp (FFmpeg as the container decoder in the program's own
# process) compiled once for every test and fuzz program that links it, not once a program.
if(TARGET hearsay_audio_ffmpeg AND NOT TARGET hearsay_test_ffmpeg)
    add_library(hearsay_test_ffmpeg OBJECT ${CMAKE_CURRENT_LIST_DIR}/use_ffmpeg.cpp)
    target_link_libraries(hearsay_test_ffmpeg PUBLIC hearsay_audio_ffmpeg PRIVATE hearsay_warnings)
endif()
