package contract

// Scratch-card operations (issue 3), appended to Ops at package
// initialisation so the shared table's file stays untouched by each area.
const (
	OpGetReward       = "GetReward"
	OpFetchRewardInfo = "FetchRewardInfo"
	OpListCards       = "GetAllScratchCardsByUserId"
	OpBankCard        = "GetScratchCardForBank"
)

func init() {
	Ops = append(Ops,
		Op{
			Name: OpGetReward, Host: Rewards, Method: "POST", Path: "/api/GetReward", Auth: BearerRef,
			Request: "GetReward.request", Response: "GetReward.response",
		},
		Op{
			Name: OpFetchRewardInfo, Host: Rewards, Method: "POST", Path: "/api/FetchRewardInfo", Auth: BearerUser,
			Request: "envelope.request", RequestBDATA: "FetchRewardInfo.request",
			Response: "FetchRewardInfo.answer", ResponseBDATA: "FetchRewardInfo.response",
		},
		Op{
			Name: OpListCards, Host: Rewards, Method: "GET", Path: "/api/GetAllScratchCardsByUserId", Auth: BearerUser,
			Response: "GetAllScratchCardsByUserId.response",
		},
		Op{
			Name: OpBankCard, Host: Bank, Method: "POST", Path: "/api/GetScratchCardForBank", Auth: SignedEnvelope,
			Request: "envelope.request", RequestBDATA: "GetScratchCardForBank.request",
			Response: "GetScratchCardForBank.answer", ResponseBDATA: "GetScratchCardForBank.response",
		},
	)
}
