/*
 * Limits of the pathmc core's topology parsers and builders (native,
 * ibnetdiscover / ibsim, Slurm topology.conf, the coordinates file, which is a
 * native torus file, and pm_topology_from_coords).  Every parser checks them
 * BEFORE it builds anything (a Slurm range is counted before it is expanded, a
 * declared port count before its ports are allocated) and reports a violation
 * as "file:line: ... (limit N)" with PM_ERR_PARSE; files are read with
 * kb_file_read() (regular files only, at most PM_MAX_FILE_BYTES).  Parsing is
 * linear in the input plus what it builds, and what it builds is bounded here.
 * docs/limits.md lists these with the limits of the rules parser.
 *
 * The fuzz build (tests/fuzz) compiles the core with smaller values (-D...) so
 * that the fuzzer spends its time on the grammar, not on huge legal inputs.
 */
#ifndef PM_LIMITS_H
#define PM_LIMITS_H

/* Bytes of one topology or coordinates file. */
#ifndef PM_MAX_FILE_BYTES
#define PM_MAX_FILE_BYTES (64L << 20)
#endif
/* Bytes of one line (a Slurm line may list thousands of hosts). */
#ifndef PM_MAX_LINE_BYTES
#define PM_MAX_LINE_BYTES (1L << 20)
#endif
/* Bytes of one host or switch name (also of a Slurm name after range expansion). */
#ifndef PM_MAX_NAME_BYTES
#define PM_MAX_NAME_BYTES 255
#endif
/* Hosts of a topology (= the largest generated torus or fat-tree). */
#ifndef PM_MAX_HOSTS
#define PM_MAX_HOSTS (1L << 20)
#endif
/* Switches, torus routers included. */
#ifndef PM_MAX_SWITCHES
#define PM_MAX_SWITCHES (1L << 20)
#endif
/* Ports a node may declare (native "switch NAME PORTS", ibnetdiscover "Switch N"). */
#ifndef PM_MAX_DECLARED_PORTS
#define PM_MAX_DECLARED_PORTS 4096
#endif
/* Port slots of all nodes together (declared or grown by links). */
#ifndef PM_MAX_PORTS
#define PM_MAX_PORTS (1L << 24)
#endif
/* Physical links (an 8-dimensional torus of 2^20 routers has 8 * 2^20 + hosts). */
#ifndef PM_MAX_LINKS
#define PM_MAX_LINKS (1L << 24)
#endif
/* Bracket groups in one Slurm host-list item: n[0-3]x[0-3] has 2. */
#ifndef PM_MAX_SLURM_BRACKETS
#define PM_MAX_SLURM_BRACKETS 8
#endif

#endif /* PM_LIMITS_H */
