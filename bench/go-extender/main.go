// A minimal kube-scheduler extender written the usual way in Go, as the baseline in
// headroom's extender latency benchmark (bench/extender_latency.cc, scripts/bench-extender.sh):
// encoding/json decodes ExtenderArgs into typed structs, and filter applies the same projected
// fit check as headroom-extender (every pod at base plus the node's largest headroom). It is a
// benchmark peer, not part of headroom.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
)

type ObjectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
}

type ResourceRequirements struct {
	Requests map[string]string `json:"requests"`
	Limits   map[string]string `json:"limits"`
}

type Container struct {
	Name      string               `json:"name"`
	Resources ResourceRequirements `json:"resources"`
}

type Pod struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Containers []Container `json:"containers"`
	} `json:"spec"`
}

type Node struct {
	Metadata ObjectMeta `json:"metadata"`
	Status   struct {
		Allocatable map[string]string `json:"allocatable"`
	} `json:"status"`
}

type NodeList struct {
	Items []json.RawMessage `json:"items"`
}

type ExtenderArgs struct {
	Pod       Pod
	Nodes     *NodeList
	NodeNames *[]string
}

type ExtenderFilterResult struct {
	Nodes                      *NodeList
	NodeNames                  *[]string
	FailedNodes                map[string]string
	FailedAndUnresolvableNodes map[string]string
	Error                      string
}

type HostPriority struct {
	Host  string
	Score int64
}

// The node state headroom-extender gets from reports: base and headroom sums per node.
type NodeState struct {
	AllocatableMillis int64 `json:"allocatableMillis"`
	BaseMillis        int64 `json:"baseMillis"`
	MaxHeadroomMillis int64 `json:"maxHeadroomMillis"`
}

var state map[string]NodeState

func milli(q string) int64 {
	switch {
	case strings.HasSuffix(q, "m"):
		v, _ := strconv.ParseInt(strings.TrimSuffix(q, "m"), 10, 64)
		return v
	default:
		v, _ := strconv.ParseFloat(q, 64)
		return int64(v * 1000)
	}
}

func footprint(pod *Pod) (base, headroom int64) {
	for _, c := range pod.Spec.Containers {
		r := milli(c.Resources.Requests["cpu"])
		l := milli(c.Resources.Limits["cpu"])
		base += r
		if l-r > headroom {
			headroom = l - r
		}
	}
	return
}

func fits(name string, base, headroom int64) (bool, string) {
	s, ok := state[name]
	if !ok {
		return true, ""
	}
	h := s.MaxHeadroomMillis
	if headroom > h {
		h = headroom
	}
	projected := s.BaseMillis + base + h
	if projected > s.AllocatableMillis {
		return false, fmt.Sprintf("projected cpu %dm exceeds allocatable %dm", projected, s.AllocatableMillis)
	}
	return true, ""
}

func names(args *ExtenderArgs) ([]string, []json.RawMessage) {
	if args.NodeNames != nil {
		return *args.NodeNames, nil
	}
	var out []string
	for _, raw := range args.Nodes.Items {
		var n Node
		if err := json.Unmarshal(raw, &n); err == nil {
			out = append(out, n.Metadata.Name)
		}
	}
	return out, args.Nodes.Items
}

func decode(w http.ResponseWriter, r *http.Request) (*ExtenderArgs, bool) {
	var args ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil || (args.Nodes == nil && args.NodeNames == nil) {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return nil, false
	}
	return &args, true
}

func filter(w http.ResponseWriter, r *http.Request) {
	args, ok := decode(w, r)
	if !ok {
		return
	}
	base, headroom := footprint(&args.Pod)
	nodeNames, items := names(args)
	result := ExtenderFilterResult{FailedNodes: map[string]string{}, FailedAndUnresolvableNodes: map[string]string{}}
	passed := []string{}
	var kept []json.RawMessage
	for i, name := range nodeNames {
		if ok, reason := fits(name, base, headroom); ok {
			passed = append(passed, name)
			if items != nil {
				kept = append(kept, items[i])
			}
		} else {
			result.FailedNodes[name] = reason
		}
	}
	if items != nil {
		result.Nodes = &NodeList{Items: kept}
	} else {
		result.NodeNames = &passed
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(result)
}

func prioritize(w http.ResponseWriter, r *http.Request) {
	args, ok := decode(w, r)
	if !ok {
		return
	}
	base, headroom := footprint(&args.Pod)
	nodeNames, _ := names(args)
	out := make([]HostPriority, 0, len(nodeNames))
	for _, name := range nodeNames {
		score := int64(5)
		if s, ok := state[name]; ok && s.AllocatableMillis > 0 {
			free := s.AllocatableMillis - s.BaseMillis - base - max(s.MaxHeadroomMillis, headroom)
			score = max(0, min(10, 10*free/s.AllocatableMillis))
		}
		out = append(out, HostPriority{Host: name, Score: score})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func main() {
	address := flag.String("address", "127.0.0.1:0", "listen address")
	stateFile := flag.String("state", "", "JSON map of node name to NodeState")
	flag.Parse()
	state = map[string]NodeState{}
	if *stateFile != "" {
		data, err := os.ReadFile(*stateFile)
		if err != nil {
			log.Fatal(err)
		}
		if err := json.Unmarshal(data, &state); err != nil {
			log.Fatal(err)
		}
	}
	http.HandleFunc("/filter", filter)
	http.HandleFunc("/prioritize", prioritize)
	log.Printf("go baseline extender on %s with %d nodes", *address, len(state))
	log.Fatal(http.ListenAndServe(*address, nil))
}
