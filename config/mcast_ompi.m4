# MCAST_CHECK_OMPI: find Open MPI through its wrapper compiler (or --with-ompi=DIR),
# check its devel headers and coll component API, record the version we build against.
AC_DEFUN([MCAST_CHECK_OMPI], [
  AC_ARG_WITH([ompi],
    [AS_HELP_STRING([--with-ompi=DIR], [Open MPI installation prefix (default: from mpicc in PATH)])],
    [], [with_ompi=])
  AC_ARG_WITH([ompi-componentdir],
    [AS_HELP_STRING([--with-ompi-componentdir=DIR],
      [where make install puts the components (default: Open MPI's pkglibdir, or LIBDIR/openmpi under an explicit --prefix)])],
    [], [with_ompi_componentdir=])

  AS_IF([test -n "$with_ompi"],
        [MCAST_MPICC="$with_ompi/bin/mpicc"; MCAST_OMPI_INFO="$with_ompi/bin/ompi_info"],
        [AC_PATH_PROG([MCAST_MPICC], [mpicc], [no])
         AC_PATH_PROG([MCAST_OMPI_INFO], [ompi_info], [no])])
  AS_IF([test "x$MCAST_MPICC" = xno || test ! -x "$MCAST_MPICC"],
        [AC_MSG_ERROR([Open MPI's mpicc not found. Debian: apt-get install libopenmpi-dev openmpi-bin (or pass --with-ompi=DIR)])])
  AS_IF([test "x$MCAST_OMPI_INFO" = xno || test ! -x "$MCAST_OMPI_INFO"],
        [AC_MSG_ERROR([ompi_info not found. Debian: apt-get install openmpi-bin])])

  MCAST_OMPI_INCDIRS=`$MCAST_MPICC --showme:incdirs`
  MCAST_OMPI_LIBDIR=`$MCAST_MPICC --showme:libdirs | awk '{print $[]1}'`
  MCAST_OMPI_CPPFLAGS=""
  for d in $MCAST_OMPI_INCDIRS; do MCAST_OMPI_CPPFLAGS="$MCAST_OMPI_CPPFLAGS -I$d"; done
  MCAST_OMPI_LIBS="-L$MCAST_OMPI_LIBDIR -Wl,-rpath,$MCAST_OMPI_LIBDIR -lmpi -lopen-pal"

  mcast_save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS $MCAST_OMPI_CPPFLAGS"
  AC_CHECK_HEADER([ompi_config.h], [],
    [AC_MSG_ERROR([Open MPI devel headers (ompi_config.h) not found. Debian: apt-get install libopenmpi-dev])])
  AC_MSG_CHECKING([Open MPI version in the headers])
  AC_COMPUTE_INT([mcast_ompi_major], [OMPI_MAJOR_VERSION], [#include "ompi_config.h"], [mcast_ompi_major=0])
  AC_COMPUTE_INT([mcast_ompi_minor], [OMPI_MINOR_VERSION], [#include "ompi_config.h"], [mcast_ompi_minor=0])
  AC_COMPUTE_INT([mcast_ompi_release], [OMPI_RELEASE_VERSION], [#include "ompi_config.h"], [mcast_ompi_release=0])
  MCAST_OMPI_VERSION="$mcast_ompi_major.$mcast_ompi_minor.$mcast_ompi_release"
  AC_MSG_RESULT([$MCAST_OMPI_VERSION])

  # Headers opal_config.h names but a packaged Open MPI may lack (Debian 13's 5.0.7:
  # the pthreads and timer implementation headers); contrib/ompi-devel-headers puts them here.
  AC_ARG_WITH([ompi-headers],
    [AS_HELP_STRING([--with-ompi-headers=DIR],
      [headers the installed Open MPI devel headers lack (default: /usr/local/share/ompi-coll-mcast/ompi-VERSION-headers when it exists; contrib/ompi-devel-headers fills it)])],
    [], [with_ompi_headers=])
  AS_IF([test -z "$with_ompi_headers"],
        [with_ompi_headers="/usr/local/share/ompi-coll-mcast/ompi-$MCAST_OMPI_VERSION-headers"])
  MCAST_OMPI_EXTRA_HEADERS=none
  AS_IF([test -d "$with_ompi_headers"],
        [MCAST_OMPI_CPPFLAGS="$MCAST_OMPI_CPPFLAGS -I$with_ompi_headers"
         CPPFLAGS="$CPPFLAGS -I$with_ompi_headers"
         MCAST_OMPI_EXTRA_HEADERS="$with_ompi_headers"])
  AC_SUBST([MCAST_OMPI_EXTRA_HEADERS])

  # Open MPI 5's internal headers include the external PMIx's pmix.h (opal/mca/pmix).
  AS_IF([test "$mcast_ompi_major" -ge 5],
        [PKG_CHECK_MODULES([OMPI_PMIX], [pmix], [],
           [AC_MSG_ERROR([Open MPI $MCAST_OMPI_VERSION's headers include pmix.h: install libpmix-dev (contrib/deps.sh does)])])
         MCAST_OMPI_CPPFLAGS="$MCAST_OMPI_CPPFLAGS $OMPI_PMIX_CFLAGS"
         CPPFLAGS="$CPPFLAGS $OMPI_PMIX_CFLAGS"])

  AC_CHECK_HEADER([ompi/mca/coll/coll.h], [],
    [mcast_missing=`MPICC="$MCAST_MPICC" $srcdir/contrib/ompi-devel-headers --check "$with_ompi_headers" 2>&1 | sed -n 's/.*lack: *//p'`
     AS_IF([test -n "$mcast_missing"],
       [AC_MSG_ERROR([Open MPI $MCAST_OMPI_VERSION's devel headers lack headers its opal_config.h names ($mcast_missing). Run contrib/ompi-devel-headers (contrib/deps.sh does): it takes them from the Debian source package of the installed Open MPI into $with_ompi_headers])],
       [AC_MSG_ERROR([ompi/mca/coll/coll.h not found or not compilable (see config.log): Open MPI was not installed with --with-devel-headers. Debian: apt-get install libopenmpi-dev])])],
    [#include "ompi_config.h"])

  AC_MSG_CHECKING([coll component API])
  AC_EGREP_CPP([mcast_api_3_0_0], [#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#ifdef MCA_COLL_BASE_VERSION_3_0_0
mcast_api_3_0_0
#endif], [MCAST_COLL_API=3.0.0], [
  AC_EGREP_CPP([mcast_api_2_4_0], [#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#ifdef MCA_COLL_BASE_VERSION_2_4_0
mcast_api_2_4_0
#endif], [MCAST_COLL_API=2.4.0], [
  AC_EGREP_CPP([mcast_api_2_0_0], [#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#ifdef MCA_COLL_BASE_VERSION_2_0_0
mcast_api_2_0_0
#endif], [MCAST_COLL_API=2.0.0], [MCAST_COLL_API=unknown])])])
  AC_MSG_RESULT([$MCAST_COLL_API])
  AS_IF([test "$MCAST_COLL_API" != "2.0.0" && test "$MCAST_COLL_API" != "2.4.0"],
    [AC_MSG_ERROR([coll component API $MCAST_COLL_API is not supported yet (supported: 2.0.0, Open MPI 4.x; 2.4.0, Open MPI 5.0); see ompi/mca/common/mcast/mcast_compat.h])])
  CPPFLAGS="$mcast_save_CPPFLAGS"

  AC_SUBST([MCAST_OMPI_MAJOR], [$mcast_ompi_major])
  AC_SUBST([MCAST_OMPI_MINOR], [$mcast_ompi_minor])
  AC_SUBST([MCAST_OMPI_RELEASE], [$mcast_ompi_release])

  # Where components go: Open MPI's own component dir unless --prefix was given.
  MCAST_OMPI_PKGLIBDIR=`$MCAST_OMPI_INFO --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p'`
  AS_IF([test -z "$MCAST_OMPI_PKGLIBDIR"],
        [MCAST_OMPI_PKGLIBDIR=`$MCAST_OMPI_INFO --path pkglibdir | sed 's/.*: *//'`])
  AS_IF([test -n "$with_ompi_componentdir"], [mcast_componentdir="$with_ompi_componentdir"],
        [test "x$prefix" != xNONE], [mcast_componentdir='${libdir}/openmpi'],
        [mcast_componentdir="$MCAST_OMPI_PKGLIBDIR"])
  AC_SUBST([mcast_componentdir])
  AC_SUBST([MCAST_MPICC])
  AC_SUBST([MCAST_OMPI_INFO])
  AC_SUBST([MCAST_OMPI_VERSION])
  AC_SUBST([MCAST_OMPI_CPPFLAGS])
  AC_SUBST([MCAST_OMPI_LIBS])
  AC_SUBST([MCAST_OMPI_LIBDIR])
  AC_SUBST([MCAST_OMPI_INCDIRS])
  AC_SUBST([MCAST_OMPI_PKGLIBDIR])
  AC_SUBST([MCAST_COLL_API])
  AC_PATH_PROG([MCAST_MPIRUN], [mpirun], [mpirun], [`dirname $MCAST_MPICC`:$PATH])
  AC_SUBST([MCAST_MPIRUN])
])

# MCAST_CHECK_OPTIONAL: hwloc, PMIx, UCX (optional; shown in the summary).
AC_DEFUN([MCAST_CHECK_OPTIONAL], [
  PKG_CHECK_MODULES([HWLOC], [hwloc], [mcast_have_hwloc=yes], [mcast_have_hwloc="no (apt-get install libhwloc-dev)"])
  AS_IF([test "$mcast_have_hwloc" = yes], [MCAST_HAVE_HWLOC=1], [MCAST_HAVE_HWLOC=0])
  AC_SUBST([MCAST_HAVE_HWLOC])
  AM_CONDITIONAL([MCAST_HAVE_HWLOC], [test "$mcast_have_hwloc" = yes])
  PKG_CHECK_MODULES([PMIX], [pmix], [mcast_have_pmix=yes], [mcast_have_pmix="no (apt-get install libpmix-dev)"])
  AS_IF([test "$mcast_have_pmix" = yes], [MCAST_HAVE_PMIX=1], [MCAST_HAVE_PMIX=0])
  AC_SUBST([MCAST_HAVE_PMIX])
  AM_CONDITIONAL([MCAST_HAVE_PMIX_AM], [test "$mcast_have_pmix" = yes])
  PKG_CHECK_MODULES([UCX], [ucx], [mcast_have_ucx=yes], [mcast_have_ucx="no (apt-get install libucx-dev)"])
])

# MCAST_CHECK_CMOCKA: the tests (`make check`) need CMocka; the components do not.
#   default          build the tests when CMocka is there, else leave them out (said in the summary)
#   --enable-tests   require them: stop with the package to install when CMocka is missing
#   --disable-tests  never build them
AC_DEFUN([MCAST_CHECK_CMOCKA], [
  AC_ARG_ENABLE([tests],
    [AS_HELP_STRING([--enable-tests], [build the tests (make check); needs CMocka (default: when CMocka is found)])],
    [], [enable_tests=auto])
  mcast_have_cmocka=no
  AS_IF([test "x$enable_tests" != xno],
        [PKG_CHECK_MODULES([CMOCKA], [cmocka], [mcast_have_cmocka=yes], [mcast_have_cmocka=no])])
  AS_CASE(["$enable_tests/$mcast_have_cmocka"],
    [yes/no], [AC_MSG_ERROR([--enable-tests: the tests need CMocka, which was not found. Debian: apt-get install libcmocka-dev (contrib/deps.sh test installs everything the tests need), or configure without --enable-tests])],
    [no/*], [mcast_build_tests="no (--disable-tests)"],
    [*/yes], [mcast_build_tests=yes],
    [mcast_build_tests="no (CMocka not found: apt-get install libcmocka-dev, or contrib/deps.sh test; then re-run configure)"])
  AM_CONDITIONAL([MCAST_HAVE_CMOCKA], [test "$mcast_have_cmocka" = yes])
  AM_CONDITIONAL([MCAST_BUILD_TESTS], [test "$mcast_build_tests" = yes])
  AC_SUBST([mcast_build_tests])
])
