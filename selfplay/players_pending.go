package selfplay

import "fmt"

// rolloutFactory and checkpointFactory are filled in when the search and network players land.
func rolloutFactory(n int, opts PlayerOptions) (PlayerFactory, error) {
	return nil, fmt.Errorf("selfplay: rollout players are not available in this build yet")
}

func checkpointFactory(path string, opts PlayerOptions) (PlayerFactory, error) {
	return nil, fmt.Errorf("selfplay: checkpoint players are not available in this build yet (%s)", path)
}
