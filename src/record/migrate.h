// Migrations of older record layouts to the current Record (record_json.h applies
// them after reading). Internal to record/.
#pragma once

#include "record/record.h"

namespace servebench::record::internal {

// Schema 1 carried no headline, repetitions, accuracy or pp / pcp_size /
// num_speculative_tokens / disagg / prefill_gpus / decode_gpus. They are derived
// exactly as the current writer derives them (record_builder.h): the deployment from
// the embedded Point when it is a whole one (else the schema-1 fields as they are,
// num_gpus 0 counting as tp, which is what schema-1 readers divided by), then the
// headline and repetitions from `summary`, the accuracy from `evals`.
void MigrateFromV1(Record* record);

}  // namespace servebench::record::internal
