# MCAST_CHECK_OPENSM: the OpenSM routing-engine plugin (contrib/opensm-cyclic) needs the
# OpenSM headers (Debian libopensm-dev, under /usr/include/infiniband) with the external
# routing engine API; the SA join tool ib-mcjoin needs libibumad (libibumad-dev).  Both are
# optional: without them the plugin / tool are not built and tests/fabric skips.
AC_DEFUN([MCAST_CHECK_OPENSM], [
  AC_ARG_WITH([opensm-include],
    [AS_HELP_STRING([--with-opensm-include=DIR], [dir holding opensm/osm_opensm.h (default /usr/include/infiniband)])],
    [], [with_opensm_include=/usr/include/infiniband])
  MCAST_OPENSM_CPPFLAGS="-I$with_opensm_include"
  mcast_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $MCAST_OPENSM_CPPFLAGS"
  AC_CHECK_HEADER([opensm/osm_opensm.h], [mcast_have_opensm=yes],
                  [mcast_have_opensm="no (apt-get install libopensm-dev)"],
                  [#include <opensm/osm_config.h>])
  AS_IF([test "$mcast_have_opensm" = yes],
        [AC_CHECK_DECL([osm_register_external_routing_engine], [],
                       [mcast_have_opensm="no (OpenSM without external routing engines)"],
                       [#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>])])
  CPPFLAGS=$mcast_save_CPPFLAGS
  AC_SUBST([MCAST_OPENSM_CPPFLAGS])
  AM_CONDITIONAL([MCAST_HAVE_OPENSM], [test "$mcast_have_opensm" = yes])

  mcast_have_ibumad="no (apt-get install libibumad-dev)"
  AC_CHECK_HEADER([infiniband/umad_sa_mcm.h],
    [AC_CHECK_LIB([ibumad], [umad_init], [mcast_have_ibumad=yes; IBUMAD_LIBS=-libumad])])
  AC_SUBST([IBUMAD_LIBS])
  AM_CONDITIONAL([MCAST_HAVE_IBUMAD], [test "$mcast_have_ibumad" = yes])
])
