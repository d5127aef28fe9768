// Package servicesim is a deterministic simulation of cosid serve and its clients:
// real servers (server.New over real runtimes and stores) and real clients
// (httpstore, the Connect client of IdService) on an in-memory network inside a
// testing/synctest bubble, where servers go down, hang with their connections
// accepted (a process stopped with SIGSTOP) and come back, clients restart, keys are
// evicted and reopened, and streams are cancelled mid-range, in an order drawn from
// a seed. Every id is checked as it is made: see Result.Failure for what is checked.
//
// It is the simulation of the paths that cross the network, beside
// internal/testkit/sim, which plays the generators against a simulated store. Each
// scenario has a defect planted behind a build tag (plant_*.go in the package under
// test) that the checker must find within a budget of schedules
// (TestSim_FindsPlantedDefects).
package servicesim
