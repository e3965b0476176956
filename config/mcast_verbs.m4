# MCAST_CHECK_VERBS: rdma-core's headers and libraries (Debian: libibverbs-dev,
# librdmacm-dev) -> the InfiniBand UD multicast transport is built (MCAST_HAVE_VERBS=1,
# VERBS_LIBS, AM conditional MCAST_HAVE_VERBS_AM).  --without-verbs skips it;
# --with-verbs makes it mandatory.
AC_DEFUN([MCAST_CHECK_VERBS], [
  AC_ARG_WITH([verbs],
    [AS_HELP_STRING([--without-verbs], [do not build the InfiniBand UD multicast transport])],
    [], [with_verbs=check])
  mcast_have_verbs=no
  VERBS_LIBS=
  AS_IF([test "x$with_verbs" != xno], [
    AC_CHECK_HEADER([infiniband/verbs.h], [
      AC_CHECK_HEADER([rdma/rdma_cma.h], [
        AC_CHECK_LIB([ibverbs], [ibv_get_device_list], [
          AC_CHECK_LIB([rdmacm], [rdma_join_multicast],
            [mcast_have_verbs=yes; VERBS_LIBS="-lrdmacm -libverbs"], [], [-libverbs])])])])
    AS_IF([test "x$with_verbs" = xyes && test "$mcast_have_verbs" != yes],
      [AC_MSG_ERROR([--with-verbs: rdma-core headers or libraries not found. Debian: apt-get install libibverbs-dev librdmacm-dev])])
  ])
  AS_IF([test "$mcast_have_verbs" = yes], [MCAST_HAVE_VERBS=1],
        [MCAST_HAVE_VERBS=0
         AS_IF([test "x$with_verbs" != xno], [mcast_have_verbs="no (apt-get install libibverbs-dev librdmacm-dev)"])])
  AC_SUBST([MCAST_HAVE_VERBS])
  AC_SUBST([VERBS_LIBS])
  AM_CONDITIONAL([MCAST_HAVE_VERBS_AM], [test "$MCAST_HAVE_VERBS" = 1])
])
