/* The table of the survey's sections, in the order they run: a section that others read (the
 * working-set sweep's cache sizes) comes before them. */
#include "survey_sections.h"

#include <stddef.h>

const struct ts_section_def *const ts_survey_section_defs[] = {
    &ts_section_sweep,
    &ts_section_mixes,
    NULL,
};
