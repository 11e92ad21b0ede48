package cards

// SourceSDK is the source of cards issued by the SDK client issuance
// emulation (SDK-1). It is its own idempotency namespace: a duplicate
// extTransactionId sent through the SDK gets the SDK's original cards,
// never GetReward's.
const SourceSDK = "SDK"
