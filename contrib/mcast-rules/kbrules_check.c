/* kbrules_check FILE RANKS BYTES SINGLE_NODE: parse a decision-rules file with the
 * k-binomial core and print the matching line ("line N ALGORITHM", or "none");
 * errors as "FILE:LINE: ..." with exit status 1.  Used by test_rules.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "kbinomial.h"

int main(int argc, char **argv)
{
    kb_rules_t *rules;
    kb_rule_t r;
    char err[512];
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE RANKS BYTES SINGLE_NODE\n", argv[0]);
        return 2;
    }
    if (KB_OK != kb_rules_load(argv[1], &rules, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int m = kb_rules_match(rules, atoi(argv[2]), (size_t) strtoull(argv[3], NULL, 10), atoi(argv[4]), &r);
    if (m == 1) printf("line %d %s\n", r.line, r.algorithm);
    else printf("none\n");
    kb_rules_free(rules);
    return m < 0;
}
