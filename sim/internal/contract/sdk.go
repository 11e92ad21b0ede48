package contract

// SDK client issuance (issue 7, SDK-1): the simulator's emulation of the
// mobile SDK helper (Android getScratchCardDetails, iOS
// sendRewardCardRequest) as plain JSON calls on the bank host. Both names
// take the same parameters and answer 2.7.
const (
	OpSDKIssueAndroid = "getScratchCardDetails"
	OpSDKIssueIOS     = "sendRewardCardRequest"

	// SDKClient is the SDK helper's authentication: none of its own; the
	// channel is the one the SDK was initialised with (channelName).
	SDKClient Auth = "sdk-client"
)

func init() {
	for _, name := range []string{OpSDKIssueAndroid, OpSDKIssueIOS} {
		Ops = append(Ops, Op{
			Name: name, Host: Bank, Method: "POST", Path: "/sdk/" + name, Auth: SDKClient,
			Request: "sdk-issue.request", Response: "sdk-issue.response",
		})
	}
}
