# AX_CXX17: require a C++ compiler that accepts -std=c++17 (our own small check).
AC_DEFUN([AX_CXX17], [
  AC_LANG_PUSH([C++])
  mcast_save_CXXFLAGS="$CXXFLAGS"
  CXXFLAGS="$CXXFLAGS -std=c++17"
  AC_MSG_CHECKING([whether $CXX supports C++17])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <optional>
#include <string_view>]], [[std::optional<int> o = 1; std::string_view s{"x"}; return *o - 1 + (int)s.size() - 1;]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([a C++17 compiler is required (Debian: apt-get install g++)])])
  CXXFLAGS="$mcast_save_CXXFLAGS"
  AC_LANG_POP([C++])
  AC_SUBST([MCAST_CXX17_FLAGS], ["-std=c++17"])
])
