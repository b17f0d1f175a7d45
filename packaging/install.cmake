# Installation rules (the packaging issue extends these with CPack).
include(GNUInstallDirs)
install(TARGETS cudnn-install RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
