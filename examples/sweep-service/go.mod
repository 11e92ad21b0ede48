module rewardsim.invalid/sweep-service

go 1.26.8
